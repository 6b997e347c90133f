import { runService } from '@convo/kit';
import { messagingService } from './server';

runService(messagingService);
