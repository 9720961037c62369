/**
 * One schema version: single statements (18.16 takes one per request), all idempotent (`IF NOT
 * EXISTS`; an `ADD COLUMN`, which 18.16 cannot say that of, counts as applied when the column is
 * there), so a migration interrupted half way is simply applied again. `db` is the database name,
 * already checked as an identifier (`createStore`).
 */
export type Migration = { version: number; name: string; statements: (db: string) => string[] };
