export { createStore, type Store, type StoreOptions } from './client.js';
export { migrate, type MigrateResult } from './migrate.js';
export { MIGRATIONS, TABLES, type Migration, type TableName } from './schema.js';
export { writeBatch, type WriteResult } from './write.js';
export { batchRows, emptyBatch, recordBatch, type RecordBatch, type Stored } from './rows.js';
export { StoreError, toStoreError } from './errors.js';
export { str, uint, int32, strList, ident, SqlValueError } from './sql.js';
export { toTsv, tsvField, type TsvValue } from './tsv.js';
export type { Row } from './rows.js';
