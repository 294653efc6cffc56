"""How the language-model oracles (test_*.py here) start: run by ctest with the system Python as
`test_X.py --FLAG path/to/program`, each re-runs itself under pytest in the venv .venv-llm
(scripts/llm-env.sh) with the program's path in an environment variable, and exits 77 (ctest's
skipped) when the venv or one of the modules it needs is missing."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VENV_PYTHON = ROOT / ".venv-llm" / "bin" / "python"


def rerun_under_pytest(script, flag, env_name, modules, what):
    """Checks `script`'s arguments (`flag PATH`), then execs pytest on `script` in .venv-llm with
    PATH (absolute) in `env_name`; exits 77 naming `what` when the venv lacks `modules`."""
    args = sys.argv[1:]
    name = Path(script).name
    if len(args) != 2 or args[0] != flag:
        sys.exit(f"usage: {name} {flag} PATH")
    probe = [str(VENV_PYTHON), "-c", "import " + ", ".join(modules)]
    if not VENV_PYTHON.exists() or subprocess.run(probe, capture_output=True).returncode != 0:
        print(f"{what}: .venv-llm with {'/'.join(modules)} is missing (scripts/llm-env.sh); "
              "skipped")
        sys.exit(77)
    env = dict(os.environ, **{env_name: str(Path(args[1]).resolve())})
    os.execve(str(VENV_PYTHON), [str(VENV_PYTHON), "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                 str(Path(script).resolve())], env)
