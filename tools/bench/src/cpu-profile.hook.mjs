// A CPU profiler that a running process turns on and off on a signal, for profiling the services
// and the gateway under load without restarting them (`--cpu-prof` is refused in NODE_OPTIONS and
// profiles the whole life of a process). Plain JavaScript so that it loads before tsx does:
//
//   CPU_PROFILE_DIR=/tmp/profiles NODE_OPTIONS="--import=$PWD/tools/bench/src/cpu-profile.hook.mjs" <start the processes>
//
// The first SIGUSR2 a process receives starts the V8 sampling profiler; the next one stops it and
// writes `<CPU_PROFILE_DIR>/<name>-<pid>-<n>.cpuprofile` (the .cpuprofile JSON of Chrome DevTools
// and `node --cpu-prof`), where <name> is the process's entry (gateway, stories, users …). The edge
// suite does this around its first measured round of each target when CPU_PROFILE_DIR is set;
// `npm run profile:summary -w @inkwell/bench -- <file>` prints a textual flame graph of a profile.
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

const directory = process.env.CPU_PROFILE_DIR;

/** gateway/src/main.ts → gateway, services/stories/src/main.ts → stories; else the script's name. */
function processName() {
  const entry = (process.argv[1] ?? 'node').replaceAll('\\', '/');
  const match = /([^/]+)\/src\/main\.[cm]?[jt]s$/.exec(entry);
  return match ? match[1] : (entry.split('/').pop() ?? 'node');
}

if (directory) {
  const session = new Session();
  session.connect();
  let running = false;
  let written = 0;
  process.on('SIGUSR2', () => {
    if (!running) {
      running = true;
      session.post('Profiler.enable', () => session.post('Profiler.start'));
      return;
    }
    running = false;
    session.post('Profiler.stop', (error, result) => {
      if (error) {
        process.stderr.write(`cpu profile not written: ${error.message}\n`);
        return;
      }
      mkdirSync(directory, { recursive: true });
      written += 1;
      writeFileSync(join(directory, `${processName()}-${process.pid}-${written}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
