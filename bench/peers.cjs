// peers.cjs runs one workload through one JavaScript peer and prints its
// timings as JSON: {"samples":[seconds…],"note":"…"} or {"skip":"why"}.
// `go run ./bench` calls it as: node peers.cjs '<json spec>'. The peers are
// installed by bench/setup.sh into spec.peers/node_modules.
'use strict';
const fs = require('fs');
const path = require('path');

// copySynced copies a store for an update run and syncs the copy, untimed:
// otherwise the run's first fsync writes the whole copy back to disk.
function copySynced(src, dst) {
  fs.copyFileSync(src, dst);
  const fd = fs.openSync(dst, 'r+');
  try { fs.fsyncSync(fd); } finally { fs.closeSync(fd); }
}

const spec = JSON.parse(process.argv[2]);
module.paths.unshift(path.join(spec.peers, 'node_modules'));

const now = () => Number(process.hrtime.bigint()) / 1e9;

// lines calls fn with each line of the NDJSON file, reading 16 MiB at a time.
function lines(file, fn) {
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.alloc(16 << 20);
  let rest = '';
  for (;;) {
    const n = fs.readSync(fd, buf, 0, buf.length, null);
    if (n === 0) break;
    const parts = (rest + buf.toString('utf8', 0, n)).split('\n');
    rest = parts.pop();
    for (const l of parts) if (l) fn(l);
  }
  if (rest) fn(rest);
  fs.closeSync(fd);
}

// cpuRuns holds the CPU seconds (user + system, all threads) of the runs
// the last timeRuns timed.
let cpuRuns = [];

async function timeRuns(runs, prep, fn) {
  const samples = [];
  cpuRuns = [];
  for (let i = 0; i < runs; i++) {
    if (prep) await prep();
    const c = process.cpuUsage();
    const t = now();
    await fn();
    samples.push(now() - t);
    const d = process.cpuUsage(c);
    cpuRuns.push((d.user + d.system) / 1e6);
  }
  return samples;
}

// perOp turns the times of runs of spec.ids.length operations into times
// per operation.
function perOp(samples) {
  cpuRuns = cpuRuns.map((c) => c / spec.ids.length);
  return samples.map((s) => s / spec.ids.length);
}

// ---- SQLite with JSONB, through better-sqlite3 ----

function jsonbImport(Database, file) {
  const db = new Database(spec.db);
  db.exec(`CREATE TABLE users(id INTEGER PRIMARY KEY, doc BLOB NOT NULL,
    email TEXT GENERATED ALWAYS AS (doc->>'$.email') VIRTUAL,
    age INTEGER GENERATED ALWAYS AS (doc->>'$.age') VIRTUAL)`);
  const ins = db.prepare(`INSERT INTO users(id, doc) SELECT j->>'$._id', j FROM (SELECT jsonb(?) AS j)`);
  db.transaction(() => lines(file, (l) => ins.run(l)))();
  db.exec(`CREATE INDEX users_email ON users(email); CREATE INDEX users_age ON users(age)`);
  db.close();
}

async function jsonb() {
  const Database = require('better-sqlite3');
  if (spec.work === 'version') {
    const db = new Database(':memory:');
    return { version: `better-sqlite3 ${require('better-sqlite3/package.json').version}, SQLite ${db.prepare('select sqlite_version() v').get().v}, in a node ${process.version} process` };
  }
  if (spec.work === 'import') {
    const samples = await timeRuns(spec.runs, () => fs.rmSync(spec.db, { force: true }), () => jsonbImport(Database, spec.data));
    return { samples };
  }
  if (!fs.existsSync(spec.db)) jsonbImport(Database, spec.data);
  if (spec.work === 'update') {
    const tmp = spec.db + '.update';
    const q = `UPDATE users SET doc=jsonb_set(doc,'$.score',(doc->>'$.score')+1,'$.flag',jsonb('true')) WHERE doc->>'$.plan'=?`;
    let changes = 0;
    const samples = await timeRuns(spec.runs, () => copySynced(spec.db, tmp), () => {
      const db = new Database(tmp);
      changes = db.prepare(q).run(spec.updatePlan).changes;
      db.close();
    });
    fs.rmSync(tmp, { force: true });
    return { samples, note: `${changes} documents` };
  }
  const db = new Database(spec.db, { readonly: true });
  const point = (sql, arg) => {
    const st = db.prepare(sql);
    return timeRuns(spec.runs, null, () => { for (const id of spec.ids) st.get(arg(id)); });
  };
  const one = (sql, ...args) => {
    const st = db.prepare(sql);
    st.all(...args); // warm-up
    return timeRuns(spec.runs, null, () => st.all(...args));
  };
  switch (spec.work) {
    case 'get':
      return { samples: perOp(await point('SELECT json(doc) AS doc FROM users WHERE id=?', (id) => id)) };
    case 'eq':
      return { samples: perOp(await point('SELECT json(doc) AS doc FROM users WHERE email=?', (id) => `user${id}@example.com`)) };
    case 'range':
      return { samples: await one('SELECT count(*) FROM users WHERE age BETWEEN ? AND ?', spec.rangeLo, spec.rangeHi) };
    case 'scan':
      return { samples: await one(`SELECT count(*) FROM users WHERE doc->>'$.address.city'=? AND doc->>'$.score'>=?`, spec.scanCity, spec.scanScore) };
    case 'group':
      return { samples: await one(`SELECT doc->>'$.address.city' AS city, count(*), avg(doc->>'$.score') FROM users GROUP BY city`) };
  }
  return {};
}

// ---- DuckDB reading the NDJSON ----

async function duckdb() {
  const { DuckDBInstance } = require('@duckdb/node-api');
  if (spec.work === 'version') {
    const inst = await DuckDBInstance.create(':memory:');
    const c = await inst.connect();
    const v = (await c.runAndReadAll('SELECT version()')).getRows()[0][0];
    return { version: `DuckDB ${v} (@duckdb/node-api ${require('@duckdb/node-api/package.json').version}), in a node ${process.version} process` };
  }
  const load = async (file) => {
    const inst = await DuckDBInstance.create(file);
    const c = await inst.connect();
    await c.run(`CREATE TABLE users AS SELECT * FROM read_json('${spec.data}', format='newline_delimited')`);
    c.closeSync();
    inst.closeSync();
  };
  if (spec.work === 'import') {
    const samples = await timeRuns(spec.runs, () => { fs.rmSync(spec.db, { force: true }); fs.rmSync(spec.db + '.wal', { force: true }); }, () => load(spec.db));
    return { samples, note: 'columns inferred; no indexes' };
  }
  if (!fs.existsSync(spec.db)) await load(spec.db);
  if (spec.work === 'update') {
    const tmp = spec.db + '.update';
    const samples = await timeRuns(spec.runs, () => copySynced(spec.db, tmp), async () => {
      const inst = await DuckDBInstance.create(tmp);
      const c = await inst.connect();
      await c.run(`UPDATE users SET score=score+1 WHERE plan='${spec.updatePlan}'`);
      c.closeSync();
      inst.closeSync();
    });
    fs.rmSync(tmp, { force: true });
    return { samples, note: 'score only: a new field would change the schema' };
  }
  const inst = await DuckDBInstance.create(spec.db, { access_mode: 'READ_ONLY' });
  const c = await inst.connect();
  const one = async (sql) => {
    await c.runAndReadAll(sql);
    return timeRuns(spec.runs, null, () => c.runAndReadAll(sql));
  };
  switch (spec.work) {
    case 'get':
    case 'eq': {
      const st = await c.prepare(spec.work === 'get' ? 'SELECT * FROM users WHERE _id=$1' : 'SELECT * FROM users WHERE email=$1');
      // Each query scans: a few ids are enough.
      spec.ids = spec.ids.slice(0, 20);
      const samples = await timeRuns(spec.runs, null, async () => {
        for (const id of spec.ids) {
          if (spec.work === 'get') st.bindBigInt(1, BigInt(id)); else st.bindVarchar(1, `user${id}@example.com`);
          await st.runAndReadAll();
        }
      });
      return { samples: perOp(samples), note: `no index (zone maps); ${spec.ids.length} queries per run` };
    }
    case 'range':
      return { samples: await one(`SELECT count(*) FROM users WHERE age BETWEEN ${spec.rangeLo} AND ${spec.rangeHi}`), note: 'columnar scan, no index' };
    case 'scan':
      return { samples: await one(`SELECT count(*) FROM users WHERE address.city='${spec.scanCity}' AND score>=${spec.scanScore}`) };
    case 'group':
      return { samples: await one(`SELECT address.city, count(*), avg(score) FROM users GROUP BY 1`) };
  }
  return {};
}

// ---- mingo: MongoDB queries over JavaScript objects in memory ----

async function mingo() {
  const m = require('mingo');
  if (spec.work === 'version') {
    return { version: `mingo ${require('mingo/package.json').version}, over parsed objects in a node ${process.version} process` };
  }
  if (!['range', 'scan', 'group', 'update'].includes(spec.work)) return {};
  const t = now();
  const docs = [];
  lines(spec.data, (l) => docs.push(JSON.parse(l)));
  const loaded = `documents parsed into memory first (${(now() - t).toFixed(1)} s, untimed)`;
  switch (spec.work) {
    case 'range': {
      const f = { age: { $gte: spec.rangeLo, $lte: spec.rangeHi } };
      return { samples: await timeRuns(spec.runs, null, () => m.find(docs, f).all().length), note: `no index; ${loaded}` };
    }
    case 'scan': {
      const f = { 'address.city': spec.scanCity, score: { $gte: spec.scanScore } };
      return { samples: await timeRuns(spec.runs, null, () => m.find(docs, f).all().length), note: loaded };
    }
    case 'group': {
      const p = [{ $group: { _id: '$address.city', n: { $sum: 1 }, avg: { $avg: '$score' } } }];
      return { samples: await timeRuns(spec.runs, null, () => m.aggregate(docs, p)), note: loaded };
    }
    case 'update': {
      const samples = await timeRuns(spec.runs, null, () => m.updateMany(docs, { plan: spec.updatePlan }, { $inc: { score: 1 }, $set: { flag: true } }));
      return { samples, note: `in memory, nothing written; ${loaded}` };
    }
  }
  return {};
}

(async () => {
  let out;
  try {
    out = await { jsonb, duckdb, mingo }[spec.sys]();
    if (out.samples && !out.cpu) out.cpu = cpuRuns;
  } catch (e) {
    out = { skip: `${spec.sys}: ${e.message}` };
  }
  process.stdout.write(JSON.stringify(out) + '\n');
})();
