"""Build the libFuzzer harness of the native modules (ASan + UBSan) and run it for a bounded time.

    python fuzz/run.py --seconds 45            # what CI runs (make fuzz)
    nice -n 10 python fuzz/run.py --seconds 3600 --jobs 1

Needs clang with libFuzzer (Debian: apt-get install clang) and the Python headers and library. An input is a JSON
text, or (after the byte 0x01) a folder described as fuzz/oracle.py says, which the oracle makes in a temporary
folder (on /dev/shm when there is one) and reads with the native folder reader. The seed corpus is the JSON
fixtures, each also as the result.json of a folder, plus a few hand-written edge cases of both; findings go to
fuzz/artifacts/ and the exit status is libFuzzer's (0: no crash, no disagreement with the exact reader or with
os.scandir and the ordinary reads, no input slower than --timeout seconds or greedier than --rss-limit-mb).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SEEDS = [
    b'{"a": 1, "a": 2}', b'{"a": "\\ud83d\\ude00", "b": [1.5e3, -0, 9007199254740992]}', b'[NaN]', b'"\\ud800"',
    b"\xef\xbb\xbf{}", b'{"a": "\xc3\xa9"}', b"[" * 70 + b"]" * 70, b'{"\\u0061": 1, "a": 2}', b"1e999",
]  # fmt: skip
FOLDER = b"\x01"  # oracle.FOLDER_MODE
# Entry kinds and name picks of a folder input (oracle.KINDS, oracle.NAMES), and its settings byte.
FILE, EMPTY, LARGE, CUT, SUBFOLDER, LINK_SIBLING, LINK_PARENT, FIFO, SOCKET = range(9)
UNREADABLE, DANGLING, LINK_SELF, TRAILING, HARDLINK, LINK_DOT, BOM = range(9, 16)
TASK, RESULT, RETRY, SUFFIX_ONLY, JSONL, NOT_UTF8, NEWLINE = 0x80, 0x81, 0x82, 0x83, 0x84, 0x87, 0x88
SUFFIX_JSON, SIZE_EXACT, SIZE_LESS, SIZE_MORE, WANT_BOTH = 1, 0, 4, 8, 0xC0
DTYPE_UNKNOWN, DTYPE_REGULAR, SHORT_READS, GROW = 1, 2, 4, 8
CONTENT = (
    b'{"task_id": "t1", "score": 1.0, "steps": [{"role": "user", "content": "\\u00e9 \xc3\xa9"}], "n": [1, -2.5e3]}'
)


def folder_seed(
    settings: int, hooks: int, fail_at: int, entries: list[tuple[int, int | bytes]], content: bytes
) -> bytes:
    """A folder input: each entry a kind and a picked name (0x80 | index) or the bytes of one."""
    body = bytes([settings, hooks, fail_at, 0, len(entries)])
    for kind, name in entries:
        body += bytes([kind, name]) if isinstance(name, int) else bytes([kind, len(name)]) + name
    return FOLDER + body + content


EVERYTHING = [
    (FILE, RESULT), (FILE, TASK), (FILE, RETRY), (SUBFOLDER, b"archive"), (FIFO, b"progress.json"),
    (LINK_PARENT, b"up.json"), (LINK_SIBLING, b"link.json"), (SOCKET, b"s.json"),
]  # fmt: skip
FOLDER_SEEDS = [
    folder_seed(SUFFIX_JSON | SIZE_EXACT | WANT_BOTH, 0, 0, EVERYTHING, CONTENT),
    folder_seed(SUFFIX_JSON | SIZE_LESS | WANT_BOTH, DTYPE_UNKNOWN, 0, EVERYTHING, CONTENT),
    folder_seed(SUFFIX_JSON | SIZE_MORE | WANT_BOTH, DTYPE_REGULAR, 0, EVERYTHING, CONTENT),
    folder_seed(SUFFIX_JSON | WANT_BOTH, SHORT_READS, 0, [(FILE, RESULT), (LARGE, RETRY), (CUT | 0x40, TASK)], CONTENT),
    folder_seed(SUFFIX_JSON | WANT_BOTH, GROW, 0, [(FILE, RESULT), (EMPTY, TASK)], CONTENT),
    folder_seed(SUFFIX_JSON, 0, 3, [(FILE, RESULT), (FILE, RETRY)], CONTENT),
    folder_seed(
        SUFFIX_JSON | 0x40,
        0,
        0,
        [
            (FILE, NOT_UTF8),
            (FILE, NEWLINE),
            (FILE | 0x80, b"\xfe\n"),
            (HARDLINK, RESULT),
            (BOM, RETRY),
            (TRAILING, SUFFIX_ONLY),
            (UNREADABLE, JSONL),
            (DANGLING, b"d.json"),
        ],
        CONTENT,
    ),
    folder_seed(
        2, 0, 0, [(FILE, b"a"), (LINK_SELF, b"me.json"), (LINK_DOT, b"here.json"), (FILE, TASK)], b"[" * 3 + b"]" * 3
    ),
]


def build(output: Path) -> None:
    include = sysconfig.get_paths()["include"]
    libdir = sysconfig.get_config_var("LIBDIR")
    library = "python" + (sysconfig.get_config_var("LDVERSION") or sysconfig.get_python_version())
    command = [
        "clang", "-g", "-O1", "-fno-omit-frame-pointer", "-fsanitize=fuzzer,address,undefined",
        "-fno-sanitize-recover=undefined", f"-I{include}", str(HERE / "fuzz_native.c"), "-o", str(output),
        f"-L{libdir}", f"-Wl,-rpath,{libdir}", f"-l{library}", "-lm",
    ]  # fmt: skip
    subprocess.run(command, check=True)


def seed_corpus(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for index, path in enumerate(sorted((ROOT / "fixtures").rglob("*.json"))):
        if path.stat().st_size <= 64 * 1024:
            shutil.copy(path, folder / f"fixture-{index}.json")
        # The same document as a folder's result.json, beside a retry record and a sub-folder holding it again.
        if path.stat().st_size <= 16 * 1024:
            entries: list[tuple[int, int | bytes]] = [(FILE, RESULT), (CUT | 0x40, RETRY), (SUBFOLDER, b"archive")]
            seed = folder_seed(SUFFIX_JSON | WANT_BOTH, 0, 0, entries, path.read_bytes())
            (folder / f"fixture-{index}.folder").write_bytes(seed)
    for index, seed in enumerate(SEEDS):
        (folder / f"seed-{index}.json").write_bytes(seed)
    for index, seed in enumerate(FOLDER_SEEDS):
        (folder / f"seed-{index}.folder").write_bytes(seed)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=45)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--corpus", type=Path, default=None, help="a corpus folder to keep (default: temporary)")
    # A slow or greedy input is a finding like a crash: one that takes more than this (the oracle reads each input
    # twice, natively and with the exact reader, under the sanitizers) or makes the process this large.
    parser.add_argument("--timeout", type=int, default=5, help="seconds one input may take (default: 5)")
    parser.add_argument("--rss-limit-mb", type=int, default=2048, help="memory of the process (default: 2048)")
    arguments = parser.parse_args()
    if shutil.which("clang") is None:
        print("clang is not installed (apt-get install clang)", file=sys.stderr)
        return 2
    # The harness and default corpus, and the folders the oracle makes (on /dev/shm when there is one: memory, not
    # disk), are removed at the end: an input that times out leaves its folder behind.
    shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
    with (
        tempfile.TemporaryDirectory(prefix="agentbeats-fuzz-") as work,
        tempfile.TemporaryDirectory(prefix="agentbeats-fuzz-folders-", dir=shm) as folders,
    ):
        return run(arguments, Path(work), folders)


def run(arguments: argparse.Namespace, work: Path, folders: str) -> int:
    harness = work / "fuzz_native"
    build(harness)
    corpus = arguments.corpus or work / "corpus"
    seed_corpus(corpus)
    artifacts = HERE / "artifacts"
    artifacts.mkdir(exist_ok=True)
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(HERE), str(ROOT / "src")]),
        "AGENTBEATS_FUZZ_FOLDERS": folders,  # where oracle.check_folder makes its folders
        "PYTHONMALLOC": "malloc",  # so that AddressSanitizer sees every Python allocation too
        "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1",  # the interpreter keeps its objects until exit
        "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
    }
    command = [
        str(harness), str(corpus), f"-max_total_time={arguments.seconds}", "-max_len=65536",
        f"-timeout={arguments.timeout}", f"-rss_limit_mb={arguments.rss_limit_mb}",
        f"-malloc_limit_mb={arguments.rss_limit_mb}", f"-artifact_prefix={artifacts}/", "-print_final_stats=1",
        # no NEW_FUNC lines: printing one starts the symbolizer, whose pipes stay open in this process, and the
        # oracle's count of open descriptors took them for a leak of the folder reader's
        "-print_funcs=0",
    ]  # fmt: skip
    if arguments.jobs > 1:
        command += [f"-jobs={arguments.jobs}", f"-workers={arguments.jobs}"]
    # libFuzzer prints a line per new input: kept in a log, so that a CI log ends with what matters.
    log = artifacts / "last-run.log"
    with log.open("wb") as stream:
        status = subprocess.run(command, env=environment, stdout=stream, stderr=subprocess.STDOUT, check=False)
    lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    stats = [line for line in lines if line.startswith("stat::number_of_executed_units")]
    if status.returncode != 0:
        print("\n".join(lines[-60:]), file=sys.stderr)
        print(f"fuzz: FAILED (exit {status.returncode}); the whole log is {log}", file=sys.stderr)
    else:
        runs = stats[0].split(":")[-1].strip() if stats else "?"
        # the harness's own lines, "stat::json_inputs: N" and "stat::folder_inputs: N"
        counted = [re.fullmatch(r"stat::(\w+)_inputs: (\d+)", line) for line in lines]
        modes = ", ".join(f"{match[2]} {match[1]}" for match in counted if match)
        print(f"fuzz: {runs} inputs ({modes}) in {arguments.seconds} s under ASan and UBSan, no finding (log: {log})")
    return status.returncode


if __name__ == "__main__":
    sys.exit(main())
