// The bench's peer for reading Chrome trace-event JSON (bench/all.sh): what a program that
// does not have profpack does with node. Parses the file (JSON.parse; the array or the object
// form), makes spans of complete ('X') and begin/end ('B'/'E') events per pid and tid, sums
// each name's inclusive time (once per stack where it recurses) and self time (less its
// children's), and prints the top 20 by self time, as `profpack top FILE` does.
'use strict';
const fs = require('fs');
const j = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const events = Array.isArray(j) ? j : j.traceEvents;
const spans = new Map();  // "pid/tid" -> [begin, end, name][]
const open = new Map();   // "pid/tid" -> B events open
// `tie` orders spans of the same begin and end outer first: complete events are written as
// they end (a callee before its caller), begin events as they begin.
const add = (k, b, e, name, tie) => {
  if (!spans.has(k)) spans.set(k, []);
  spans.get(k).push([b, e, name, tie]);
};
events.forEach((ev, i) => {
  const k = ev.pid + '/' + ev.tid;
  if (ev.ph === 'X') add(k, ev.ts, ev.ts + (ev.dur || 0), ev.name, -i);
  else if (ev.ph === 'B') {
    if (!open.has(k)) open.set(k, []);
    open.get(k).push([ev, i]);
  } else if (ev.ph === 'E') {
    const b = (open.get(k) || []).pop();
    if (b) add(k, b[0].ts, ev.ts, b[0].name, b[1]);
  }
});
const self = new Map(), incl = new Map();
const bump = (m, n, v) => m.set(n, (m.get(n) || 0) + v);
for (const list of spans.values()) {
  list.sort((a, b) => a[0] - b[0] || b[1] - a[1] || a[3] - b[3]);
  const stack = [];  // [end, name, childTime]
  const count = new Map();
  const close = () => {
    const [e, name, child, b] = stack.pop();
    bump(self, name, e - b - child);
    count.set(name, count.get(name) - 1);
    if (count.get(name) === 0) bump(incl, name, e - b);
    if (stack.length) stack[stack.length - 1][2] += e - b;
  };
  for (const [b, e, name] of list) {
    while (stack.length && stack[stack.length - 1][0] <= b) close();
    count.set(name, (count.get(name) || 0) + 1);
    stack.push([e, name, 0, b]);
  }
  while (stack.length) close();
}
const top = [...self.keys()].sort((a, b) => self.get(b) - self.get(a)).slice(0, 20);
for (const n of top) console.log(self.get(n) + ' ' + incl.get(n) + ' ' + n);
