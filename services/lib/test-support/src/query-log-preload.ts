// Preloaded into a process (`node --require @convo/test-support/query-log-preload`) by the dev mesh
// when QUERY_LOG is set (the e2e suite's index-coverage check): every database connection the kit
// opens records its queries there (query-log.ts). Loads only the kit's hook registry, which loads
// nothing, so the entry file still starts tracing before http, gRPC or mongoose load.
import { onDatabaseConnected } from '@convo/kit/database-hooks';
import { recordQueries } from './query-log';

onDatabaseConnected((conn) => recordQueries(conn));
