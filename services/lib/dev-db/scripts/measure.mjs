// Times the queries a service's hot paths make, on each FerretDB storage, and start-up of each.
// Run by `npm run measure -w @convo/dev-db` (after a build). Settings (environment):
//   MEASURE_DOCS (50000), MEASURE_RUNS (50), MEASURE_BACKENDS ("sqlite,postgresql"),
//   MEASURE_STARTS (5: warm startDatabase()+stop() timed after the cold one).
// Prints a Markdown table of medians in milliseconds; a row per query, a column per storage.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const devDb = require('../dist/index.js');
const { MongoClient } = require('mongodb');
const { Client } = require('pg');

const DOCS = Number(process.env.MEASURE_DOCS ?? 50_000);
const RUNS = Number(process.env.MEASURE_RUNS ?? 50);
const STARTS = Number(process.env.MEASURE_STARTS ?? 5);
const BACKENDS = (process.env.MEASURE_BACKENDS ?? 'sqlite,postgresql').split(',');
const MESSAGES_PER_TICKET = 10;
const TENANTS = 20;
const WARMUP = 5;

const log = (line) => console.error(line);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const pick = (xs) => xs[Math.floor(Math.random() * xs.length)];
const body = () => `${randomUUID()} ${'lorem ipsum dolor sit amet '.repeat(3)}`.slice(0, 100);

/** Median ms of `RUNS` timed calls after a few untimed ones. */
async function time(fn) {
  for (let i = 0; i < WARMUP; i++) await fn();
  const ms = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  return median(ms);
}

async function seed(messages) {
  // As a service would: the index first (at its start), then the data.
  await messages.createIndex({ tenantId: 1, ticketId: 1, createdAt: 1 });
  const ids = [];
  const started = Date.now();
  const batch = [];
  for (let i = 0; i < DOCS; i++) {
    const ticketId = Math.floor(i / MESSAGES_PER_TICKET) + 1;
    const _id = randomUUID();
    ids.push(_id);
    batch.push({
      _id,
      tenantId: (ticketId % TENANTS) + 1,
      ticketId,
      status: 'sent',
      createdAt: new Date(1_700_000_000_000 + i * 1000),
      body: body(),
    });
    if (batch.length === 1000 || i === DOCS - 1) await messages.insertMany(batch.splice(0), { ordered: false });
  }
  log(`  seeded ${DOCS} documents in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return ids;
}

async function queries(messages, ids) {
  const tickets = DOCS / MESSAGES_PER_TICKET;
  const ticket = () => {
    const ticketId = 1 + Math.floor(Math.random() * tickets);
    return { tenantId: (ticketId % TENANTS) + 1, ticketId };
  };
  const row = {};
  row.findOne_id = await time(async () => {
    if (!(await messages.findOne({ _id: pick(ids) }))) throw new Error('findOne found nothing');
  });
  row.ticketPage = await time(async () => {
    const page = await messages.find(ticket()).sort({ createdAt: -1 }).limit(20).toArray();
    if (page.length !== MESSAGES_PER_TICKET) throw new Error(`a ticket page had ${page.length} messages`);
  });
  row.updateOne_id = await time(async () => {
    const { matchedCount } = await messages.updateOne({ _id: pick(ids) }, { $set: { status: pick(['delivered', 'read', 'sent']) } });
    if (matchedCount !== 1) throw new Error('updateOne matched nothing');
  });
  // Into tickets of their own, so the seeded tickets keep their 10 messages for the next round.
  row.insertOne = await time(() => {
    const ticketId = tickets + 1 + Math.floor(Math.random() * 1e6);
    return messages.insertOne({
      _id: randomUUID(),
      tenantId: (ticketId % TENANTS) + 1,
      ticketId,
      status: 'sent',
      createdAt: new Date(),
      body: body(),
    });
  });
  return row;
}

async function measureBackend(backend) {
  log(`FerretDB over ${backend}:`);
  const db = await devDb.startDatabase({ name: 'measure', backend, log });
  const client = await MongoClient.connect(db.uri);
  const columns = {};
  try {
    const messages = client.db('measure').collection('messages');
    const ids = await seed(messages);
    if (db.postgresUrl) await sqlOn(db.postgresUrl, 'ANALYZE');
    columns[backend === 'postgresql' ? 'PostgreSQL + GIN' : 'SQLite'] = await queries(messages, ids);
    if (db.postgresUrl) {
      // The same database without the GIN indexes: what FerretDB's own btree indexes give.
      const gins = await sqlOn(db.postgresUrl, `SELECT schemaname, indexname FROM pg_indexes WHERE indexname LIKE '%\\_gin'`);
      for (const { schemaname, indexname } of gins) await sqlOn(db.postgresUrl, `DROP INDEX "${schemaname}"."${indexname}"`);
      columns['PostgreSQL, no GIN'] = await queries(messages, ids);
    }
  } finally {
    await client.close();
    await db.stop();
  }
  return columns;
}

async function sqlOn(url, text) {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

/** startDatabase() + stop(): the first in a fresh process (cold), then STARTS more (warm). */
function startups(backend) {
  const script = `
    const devDb = require(${JSON.stringify(fileURLToPath(new URL('../dist/index.js', import.meta.url)))});
    (async () => {
      const ms = [];
      for (let i = 0; i <= ${STARTS}; i++) {
        const t = performance.now();
        const db = await devDb.startDatabase({ name: 'measure-start', backend: ${JSON.stringify(backend)} });
        const started = performance.now();
        await db.stop();
        ms.push([started - t, performance.now() - started]);
      }
      console.log(JSON.stringify(ms));
    })().catch((e) => { console.error(e); process.exit(1); });`;
  const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (run.status !== 0) throw new Error(`start-up timing of ${backend} failed`);
  const [cold, ...warm] = JSON.parse(run.stdout);
  return { cold, warm: [median(warm.map((w) => w[0])), median(warm.map((w) => w[1]))] };
}

const labels = {
  findOne_id: '(a) `findOne({_id})`',
  ticketPage: '(b) `find({tenantId, ticketId}).sort({createdAt:-1}).limit(20)`',
  updateOne_id: '(c) `updateOne({_id}, {$set:{status}})`',
  insertOne: '(d) `insertOne`',
};

const results = {};
for (const backend of BACKENDS) Object.assign(results, await measureBackend(backend));
const names = Object.keys(results);
const fmt = (ms) => (ms < 10 ? ms.toFixed(1) : ms.toFixed(0));
console.log(`\nMedian ms of ${RUNS} runs, ${DOCS} documents, ${DOCS / MESSAGES_PER_TICKET} tickets of ${MESSAGES_PER_TICKET} messages\n`);
console.log(`| query | ${names.join(' | ')} |`);
console.log(`|---|${names.map(() => '---:').join('|')}|`);
for (const [key, label] of Object.entries(labels)) console.log(`| ${label} | ${names.map((n) => fmt(results[n][key])).join(' | ')} |`);

if (STARTS > 0) {
  console.log(`\nstartDatabase() / stop() in ms: cold = the first in a fresh process, warm = median of the next ${STARTS}\n`);
  console.log('| storage | cold start | cold stop | warm start | warm stop |');
  console.log('|---|---:|---:|---:|---:|');
  for (const backend of BACKENDS) {
    const { cold, warm } = startups(backend);
    console.log(`| ${backend} | ${[...cold, ...warm].map((ms) => ms.toFixed(0)).join(' | ')} |`);
  }
}
