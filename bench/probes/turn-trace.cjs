/**
 * Preloaded (`node -r`) into an API or worker of the bench stack when `TURN_TRACE_FILE` is set:
 * installs a `TurnTracer` (libs/server-core/src/turns/turn-trace.ts) in the process's build that
 * appends each mark to that file as a JSON line `{"turn","mark","t","pid"}`, buffered and written
 * every 100 ms and at exit. `t` is `process.hrtime` in microseconds, CLOCK_MONOTONIC on Linux, so
 * marks of the API, the workers and the harness on one machine compare directly.
 */
const fs = require('node:fs');
const path = require('node:path');
const { setInterval } = require('node:timers');

const file = process.env.TURN_TRACE_FILE;
if (file) {
  const { setTurnTracer } = require(
    path.join(__dirname, '../../dist/node/libs/server-core/src/turns/turn-trace.js'),
  );
  let buffer = [];
  const flush = () => {
    if (!buffer.length) return;
    const lines = buffer.join('');
    buffer = [];
    fs.appendFile(file, lines, (e) => e && console.error(`TURN_TRACE_FILE ${file}: ${e.message}`));
  };
  setInterval(flush, 100).unref();
  process.once('exit', () => buffer.length && fs.appendFileSync(file, buffer.join('')));
  setTurnTracer({
    mark(turnId, point) {
      const t = Number(process.hrtime.bigint() / 1000n);
      buffer.push(`{"turn":"${turnId}","mark":"${point}","t":${t},"pid":${process.pid}}\n`);
    },
  });
}
