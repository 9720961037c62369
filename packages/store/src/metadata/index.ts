export { contentUri, itemUri, parseContent } from './token-uri.js';
export { addPendingUris, readMetadataCursor, readMetadataEntries, readUnresolvedMetadata, saveMetadataCursor, writeMetadataEntries, type MetadataEntry, type MetadataStatus } from './cache.js';
export { readCommonContents, readTokenUris } from './discover.js';
