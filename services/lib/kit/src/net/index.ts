// Public surface of the SSRF-filtered HTTP client. The injectable resolver (safeRequestWith) and
// the parsing helpers stay internal to this folder and its tests.
export { classifyAddress, type AddressVerdict } from './ip-address';
export { parseAllowList, type AllowList } from './allow-list';
export { safeRequest, type SafeRequestOptions, type SafeResponse } from './safe-http';
export { isHttpUrl, targetUrlProblem } from './target-check';
