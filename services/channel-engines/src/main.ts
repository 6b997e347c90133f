import { runService } from '@convo/kit';
import { channelEnginesService } from './server';

runService(channelEnginesService);
