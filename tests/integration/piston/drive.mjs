// SPDX-License-Identifier: Apache-2.0
// Drives gaol through npm's piston-client, unchanged: reads
// {"server": URL, "jobs": [{"language", "code", "config"}]} on stdin and
// prints {"runtimes": <client.runtimes()>, "results": [<client.execute()>...]}.
import fs from "fs";
import piston from "piston-client";

const { server, jobs } = JSON.parse(fs.readFileSync(0, "utf8"));
const client = piston({ server });
const out = { runtimes: await client.runtimes(), results: [] };
for (const j of jobs)
  out.results.push(await client.execute(j.language, j.code, j.config || {}));
process.stdout.write(JSON.stringify(out));
