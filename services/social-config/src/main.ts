import '@convo/kit/observability/register'; // first: tracing instruments what loads after it
import { runService } from '@convo/kit/service';
import { socialConfigService } from './spec';

runService(socialConfigService);
