// The bench's peer for reading a V8 .cpuprofile (bench/all.sh): what a program that does not
// have profpack does with node, the runtime that wrote the file. Parses it (JSON.parse), gives
// each sample its time (to the next sample; the last: to endTime), sums self and inclusive
// time per function (name, url, line; a function counted once per stack where it recurses)
// and prints the top 20 by self time, as `profpack top FILE` does.
'use strict';
const fs = require('fs');
const p = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const byId = new Map();
p.nodes.forEach((n) => byId.set(n.id, n));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children || []) parent.set(c, n.id);
const keyOf = new Map();
const keys = [];
const fnOf = (n) => {
  const f = n.callFrame;
  const k = f.url + ':' + (f.lineNumber + 1) + ':' + (f.functionName || '(anonymous)');
  if (!keyOf.has(k)) keyOf.set(k, keys.push(k) - 1);
  return keyOf.get(k);
};
const nodeFn = new Map();
for (const n of p.nodes) nodeFn.set(n.id, fnOf(n));
// Time per node from the samples.
const nodeTime = new Map();
const s = p.samples, d = p.timeDeltas || [];
let total = 0, at = p.startTime;
for (let i = 0; i < s.length; i++) {
  at += d[i] || 0;
  const t = i + 1 < d.length ? d[i + 1] : p.endTime - at;
  nodeTime.set(s[i], (nodeTime.get(s[i]) || 0) + t);
  total += t;
}
// Self per function; inclusive by a walk of the tree, a function once per stack.
const self = new Float64Array(keys.length), incl = new Float64Array(keys.length);
for (const [id, t] of nodeTime) self[nodeFn.get(id)] += t;
const sub = new Map();  // node -> time of its subtree
const order = [];
const root = p.nodes.find((n) => !parent.has(n.id));
const stack = [root.id];
while (stack.length) {
  const id = stack.pop();
  order.push(id);
  for (const c of byId.get(id).children || []) stack.push(c);
}
for (let i = order.length - 1; i >= 0; i--) {
  const id = order[i];
  let t = nodeTime.get(id) || 0;
  for (const c of byId.get(id).children || []) t += sub.get(c);
  sub.set(id, t);
}
const onStack = new Int32Array(keys.length);
const walk = [[root.id, false]];
while (walk.length) {
  const [id, leaving] = walk.pop();
  const f = nodeFn.get(id);
  if (leaving) { onStack[f]--; continue; }
  if (onStack[f] === 0) incl[f] += sub.get(id);
  onStack[f]++;
  walk.push([id, true]);
  for (const c of byId.get(id).children || []) walk.push([c, false]);
}
const top = keys.map((k, i) => i).sort((a, b) => self[b] - self[a]).slice(0, 20);
console.log('total ' + total);
for (const i of top) console.log(self[i] + ' ' + incl[i] + ' ' + keys[i]);
