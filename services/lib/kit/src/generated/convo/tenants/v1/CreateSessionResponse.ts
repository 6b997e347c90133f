// Original file: /work/main/protos/tenants/v1/tenants.proto

import type { Channel as _convo_tenants_v1_Channel, Channel__Output as _convo_tenants_v1_Channel__Output } from '../../../convo/tenants/v1/Channel';
import type { ApiIntegration as _convo_tenants_v1_ApiIntegration, ApiIntegration__Output as _convo_tenants_v1_ApiIntegration__Output } from '../../../convo/tenants/v1/ApiIntegration';
import type { HybridResult as _convo_tenants_v1_HybridResult, HybridResult__Output as _convo_tenants_v1_HybridResult__Output } from '../../../convo/tenants/v1/HybridResult';

export interface CreateSessionResponse {
  'whatsapp'?: (_convo_tenants_v1_Channel | null);
  'api'?: (_convo_tenants_v1_ApiIntegration | null);
  'hybrid'?: (_convo_tenants_v1_HybridResult | null);
}

export interface CreateSessionResponse__Output {
  'whatsapp': (_convo_tenants_v1_Channel__Output | null);
  'api': (_convo_tenants_v1_ApiIntegration__Output | null);
  'hybrid': (_convo_tenants_v1_HybridResult__Output | null);
}
