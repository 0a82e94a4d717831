// bench/all.sh: node --cpu-prof of the committed workload's kinds of work (recursion, loops,
// allocation) for the seconds its argument says.
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function sumSquares(n) { let s = 0; for (let i = 0; i < n; i++) s += i * i; return s; }
function allocate(n) { const a = []; for (let i = 0; i < n; i++) a.push({ i, s: 'x' + i }); return a.length; }
const arrow = (k) => { let t = 0; for (let j = 0; j < k; j++) t += Math.sqrt(j); return t; };
let total = 0;
const end = Date.now() + Number(process.argv[2] || 5) * 1000;
while (Date.now() < end) total += fib(22) + sumSquares(300000) + allocate(40000) + arrow(200000);
console.log(total > 0 ? 'ok' : 'no');
