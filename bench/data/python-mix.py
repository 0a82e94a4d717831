# A CPU-bound mix with varied C stacks: compile the stdlib, regexes, json, sorting, decimal.
import compileall, json, re, random, decimal, sys, os, io, time, zlib, difflib
t0 = time.time()
limit = float(sys.argv[1]) if len(sys.argv) > 1 else 60
lib = os.path.dirname(os.__file__)
files = []
for root, dirs, fs in os.walk(lib):
    files += [os.path.join(root, f) for f in fs if f.endswith('.py')]
random.seed(1)
while time.time() - t0 < limit:
    f = random.choice(files)
    try:
        src = open(f, encoding='utf-8').read()
    except Exception:
        continue
    compile(src, f, 'exec')
    words = re.findall(r'\w+', src)
    json.loads(json.dumps({w: len(w) for w in words[:2000]}))
    sorted(words, key=lambda w: (len(w), w))
    zlib.decompress(zlib.compress(src.encode()))
    list(difflib.unified_diff(src.splitlines()[:200], sorted(src.splitlines()[:200])))
    decimal.Decimal(len(src)).sqrt()
