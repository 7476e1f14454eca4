"""Every benchmark of docs/performance.md in one command: the trees are generated when missing, then measured.

    python benchmarks/suite.py [WORK] [--size-mb 512] [--tasks 3000]     (make bench)

WORK (default /tmp/agentbeats-bench) gets ``generated/valid``, ``generated/broken`` (1% broken files),
``huge.actf.json`` (200 MB), ``writer/``, a run written by the AgentCompass 1.0.1 writer itself (3,000 small
tasks), and ``writer-long/``, 400 tasks of long trajectories by the same writer; then benchmarks/run.py measures the
generated tree (with the broken tree and the huge trajectory) and the writer's run, and benchmarks/side_by_side.py
measures the floor, ours and Ajv in Node on the two writer's runs and the generated tree, in interleaved rounds.
Everything is printed and also kept in WORK/results.txt. Other processes on the machine skew the figures: each
run prints the load average at its start and end.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PYTHON = sys.executable


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("work", type=Path, nargs="?", default=Path("/tmp/agentbeats-bench"))
    parser.add_argument("--size-mb", type=int, default=512)
    parser.add_argument("--tasks", type=int, default=3000)
    parser.add_argument("--huge-mb", type=int, default=200)
    parser.add_argument("--skip-check-jsonschema", action="store_true")
    arguments = parser.parse_args()
    work = arguments.work
    valid, broken = work / "generated" / "valid", work / "generated" / "broken"
    huge, writer, long = work / "huge.actf.json", work / "writer", work / "writer-long"
    generate = [PYTHON, str(HERE / "generate.py")]
    if not valid.exists():
        subprocess.run([*generate, str(valid), "--size-mb", str(arguments.size_mb), "--seed", "7"], check=True)
    if not broken.exists():
        subprocess.run(
            [*generate, str(broken), "--size-mb", str(arguments.size_mb), "--seed", "7", "--broken-percent", "1",
             "--huge-trajectory-mb", str(arguments.huge_mb)],
            check=True,
        )  # fmt: skip
        (broken / "huge.actf.json").rename(huge)
    if not writer.exists():
        subprocess.run([PYTHON, str(HERE / "agentcompass_writer.py"), str(writer), "--tasks", str(arguments.tasks)],
                       check=True)  # fmt: skip
    if not long.exists():
        long_run = [str(long), "--tasks", "400", "--steps", "100:400"]
        subprocess.run([PYTHON, str(HERE / "agentcompass_writer.py"), *long_run], check=True)
    run = [PYTHON, str(HERE / "run.py")]
    extra = ["--skip-check-jsonschema"] if arguments.skip_check_jsonschema else []
    with (work / "results.txt").open("w", encoding="utf-8") as results:
        for command in (
            [*run, str(valid), "--broken", str(broken), "--huge", str(huge), *extra],
            [*run, str(writer), *extra],
            [PYTHON, str(HERE / "side_by_side.py"), str(writer), str(long), str(valid)],
        ):
            process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
            assert process.stdout is not None
            for line in process.stdout:
                print(line, end="", flush=True)
                results.write(line)
            if process.wait() != 0:
                return process.returncode
            print(flush=True)
            results.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
