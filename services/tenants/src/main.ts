import { runService } from '@convo/kit';
import { tenantsService } from './server';

runService(tenantsService);
