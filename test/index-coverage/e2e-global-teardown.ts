// globalTeardown of the e2e suite: the shared mesh stops (support/shared-mesh-run.ts), recording
// its databases' indexes for the index-coverage check before the check runs.
import { stopSharedMesh } from '../support/shared-mesh-run';

export default async function teardown(): Promise<void> {
  await stopSharedMesh();
}
