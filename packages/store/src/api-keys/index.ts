export { apiKeysKey, generateApiKey, hashApiKey, type KeyRecord } from './layout.js';
export { apiKeyExists, missingApiKeys } from './lookup.js';
export { createKeyStore, KeyStoreError, MAX_KEY_RPS, MAX_LABEL_LENGTH, MIN_REVOKE_PREFIX, type KeyStore, type StoredKey } from './key-store.js';
