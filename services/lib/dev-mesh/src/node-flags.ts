/**
 * The node flags every process runs with: here, and in every Deployment's `command:` in
 * deploy/base (a repository test keeps the two the same).
 *
 * V8's young generation at 16 MB a semi-space, from the start and in any container. Node sizes the
 * heap from the container's memory limit: under 256–512 MiB (every Deployment but the gateway's)
 * the young generation stops at 2 MB in all, under 768 MiB at 8 MB, against the 32 MB it reaches
 * with no limit, where the benches run; a new process starts it at 1 MB. With every process of the
 * send bench held to 2 MB the mesh spent 4.4 and 5.0× the floor's CPU per send, against 4.1 and
 * 3.8× with these flags, the gateway about twice its CPU per send (docs/benchmarks.md). The cost:
 * up to 24 MB more memory a process in a pod.
 */
export const NODE_FLAGS = ['--min-semi-space-size=16', '--max-semi-space-size=16'];
