// bench/all.sh: writes to standard output a program of N (the argument) functions that call
// each other along many paths, which runs for the seconds its own argument says.
const N = Number(process.argv[2] || 4000);
let src = '';
for (let i = 0; i < N; i++)
  src += `function f${i}(d, r) { let s = 0; for (let k = 0; k < 40; k++) s += k ^ r;\n` +
         `  return d > 0 ? s + F[(r * 31 + ${i * 7}) % ${N}](d - 1, (r * 17 + ${i}) % 1009) : s; }\n`;
src += `const F = [${Array.from({ length: N }, (_, i) => 'f' + i).join(',')}];\n`;
src += `let t = 0, j = 0; const end = Date.now() + Number(process.argv[2] || 5) * 1000;\n` +
       `while (Date.now() < end) { for (let k = 0; k < 1000; k++, j++) t += F[j % ${N}](7, j % 13); }\n` +
       `console.log(t > 0 ? 'ok' : 'no');\n`;
process.stdout.write(src);
