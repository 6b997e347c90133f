import { runService } from '@convo/kit';
import { socialConfigService } from './server';

runService(socialConfigService);
