import '@convo/kit/dist/observability/register'; // first: tracing instruments what loads after it
import { runService } from '@convo/kit';
import { socialConfigService } from './server';

runService(socialConfigService);
