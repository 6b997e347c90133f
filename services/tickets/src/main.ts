import { runService } from '@convo/kit';
import { ticketsService } from './server';

runService(ticketsService);
