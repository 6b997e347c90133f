// Original file: /work/main/protos/tenants/v1/tenants.proto

import type { Tenant as _convo_tenants_v1_Tenant, Tenant__Output as _convo_tenants_v1_Tenant__Output } from '../../../convo/tenants/v1/Tenant';
import type { User as _convo_tenants_v1_User, User__Output as _convo_tenants_v1_User__Output } from '../../../convo/tenants/v1/User';

export interface StoreTenantResponse {
  'tenant'?: (_convo_tenants_v1_Tenant | null);
  'adminUser'?: (_convo_tenants_v1_User | null);
}

export interface StoreTenantResponse__Output {
  'tenant': (_convo_tenants_v1_Tenant__Output | null);
  'adminUser': (_convo_tenants_v1_User__Output | null);
}
