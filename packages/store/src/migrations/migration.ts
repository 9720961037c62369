/**
 * One schema version: single statements (18.16 takes one per request), all idempotent (`IF NOT
 * EXISTS`; an `ADD COLUMN`, which 18.16 cannot say that of, counts as applied when the column is
 * there), so a migration interrupted half way is simply applied again. `db` is the database name,
 * already checked as an identifier (`createStore`).
 */
export type Migration = {
  version: number;
  name: string;
  statements: (db: string) => string[];
  /**
   * The same change on a cluster database (`cluster/migrate.ts`), ON CLUSTER and idempotent: needed
   * by a migration that changes existing tables (`t_local` and the Distributed `t` both); a migration
   * that only creates tables and views needs none (the cluster schema comes from schema.sql).
   */
  cluster?: (db: string, cluster: string) => string[];
};
