import '@convo/kit/dist/observability/register'; // first: tracing instruments what loads after it
import { runService } from '@convo/kit/dist/service';
import { socialConfigService } from './spec';

runService(socialConfigService);
