/**
 * The node flags every process runs with: here, and in every Deployment's `command:` in
 * deploy/base (a repository test keeps the two the same).
 *
 * V8's young generation at its full size (16 MB a semi-space) from the start and in any container:
 * - A new process starts it at 1 MB and grows it only as objects survive, so for its first seconds
 *   under load it collects far more often and promotes objects that would have died young. A
 *   gateway that joins under load served 69 and 78 % of its warmed rate in its first 5 s with these
 *   flags, against 46 and 65 % without (`npm run bench:join`, docs/benchmarks.md).
 * - Node sizes the heap from the container's memory limit: under 768 MiB the young generation
 *   stops at 8 MB in all, a quarter of the 32 MB it reaches where the benches run, with no limit.
 *   These flags make the pods run with the heap the benches measured, for about 24 MB more memory a
 *   process.
 */
export const NODE_FLAGS = ['--min-semi-space-size=16', '--max-semi-space-size=16'];
