// Every test process is an installation of its own: services it starts in-process and the clients
// it creates share this mesh secret (grpc/credentials.ts of the kit). A mesh of child processes
// (services/lib/dev-mesh/src/mesh.ts) hands the same secret to its children.
process.env.MESH_SECRET ??= require('node:crypto').randomBytes(24).toString('hex');
