"""A randomized differential test against every reader of the released AgentCompass 1.0.1 (GUIDE.md section 7).

A case is a seed. From it: one of the base runs the released writer writes (``bases``: a finished run, a run still
going, a v2 run), one mutation or, in two cases out of five, two (``grammar``: a member of a JSON file, a file as a
whole, a task's folders, the progress journal), made one after the other on a copy. Then every reader entry point of
1.0.1 is run on the copy (``oracle``), ``validate`` is run on it, and the case gets one class (``cases.judge``):

- a reader *refuses* where it raises on the copy and did not on the unchanged run, or raises something else (the
  message compared with the run's folder and temporary folders masked); a result browser answer that the page's
  ``JSON.parse`` rounds (an integer beyond 2^53) is a *misread* and counts as a refusal;
- ``agreement``, ``false error``, ``missed refusal`` or ``wrong severity`` as the contract says, by where the case is.

Where a case is. A mutation is **at the run root** when the file it changes is directly in the run's folder
(run_info.json, params.json, metrics.json, progress.json, progress.jsonl, analysis_summary.json, summary.md, ...);
every other mutation is **in a task folder** (it changes something below ``details/``: a task's files, its
attempts, its folder's name or state). A case is at the run root when all its mutations are; a case with one
mutation in a task folder is in a task folder, whatever the other does (its extra errors are allowed there, so the
one-way contract is the one that can be asked of it).

The contract, by where the case is:

- at the run root, two-way: where a reader refuses, we report an error in a file directly in the run's folder
  (else ``wrong severity`` if we report an error elsewhere or a new warning, ``missed refusal`` if nothing); where
  no reader refuses, we report no error at all (else ``false error``). A warning where no reader refuses is what the
  contract asks for a departure from the writer's shape; a mutation that departs from nothing (a member re-typed
  to what it was) needs none, so a missing warning is not counted as a disagreement.
- in a task folder, one-way: where a reader refuses, we report an error somewhere in the run (else ``wrong
  severity`` if we report a new warning, ``missed refusal`` if nothing); our errors where no reader refuses are
  allowed.

Errors whatever the readers do (tests/interop/test_contract_run_files.py NOT_JSON), never a ``false error``: a
text that is not JSON by RFC 8259 (``cases.NOT_JSON`` codes: a syntax error, a duplicate member, NaN or a number
that overflows to infinity, bytes that are not UTF-8, a NUL byte, trailing data, an empty file), though Python's
``json.loads``, which every 1.0.1 reader uses, may read it; and a file that holds none of the data the writer
writes in it (``schema.type`` at the top: null, a string or an array where the writer writes an object).

A double mutation that disagrees is shrunk: each of its mutations is made alone on a fresh copy, and the first
that disagrees alone (of the same class, if one does) is printed as the minimal case.
"""
