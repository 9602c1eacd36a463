"""Runs a test module's DDP scenarios in gloo processes on the CPU and collects what each rank found.

A test module defines ``SCENARIOS``: name -> callable taking the rank and returning a list of problems (empty when
the rank's result equals the single-process one). :func:`run_scenarios` spawns the processes; each imports the
module by name, runs every scenario in turn (a barrier after each) and writes its problems to a JSON file, which
the caller reads back. :func:`problems` formats one scenario's problems over all ranks for an assertion.
"""

from __future__ import annotations

import importlib
import json
import os
import socket
import time
import traceback
import warnings
from datetime import timedelta
from pathlib import Path

import pytest


def _worker(rank: int, module: str, world: int, port: int, out_dir: str, group_timeout_s: int, quiet: bool) -> None:
    import torch
    import torch.distributed as dist

    if quiet:
        warnings.simplefilter("ignore", UserWarning)
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=timedelta(seconds=group_timeout_s))
    results: dict[str, list[str]] = {}
    try:
        for name, run in importlib.import_module(module).SCENARIOS.items():
            try:
                results[name] = run(rank)
            except Exception:
                results[name] = [f"raised on rank {rank}:\n{traceback.format_exc()}"]
            dist.barrier()
    finally:
        Path(out_dir, f"rank{rank}.json").write_text(json.dumps(results), encoding="utf-8")
        dist.destroy_process_group()


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run_scenarios(
    module: str,
    out_dir: Path,
    *,
    world: int,
    timeout_s: int,
    group_timeout_s: int,
    ignore_user_warnings: bool = False,
) -> dict[int, dict[str, list[str]]]:
    """Every rank's problems per scenario of ``module``'s ``SCENARIOS``; fails the test after ``timeout_s``."""
    import torch.distributed as dist
    import torch.multiprocessing as mp

    if not (dist.is_available() and dist.is_gloo_available()):
        pytest.skip("torch.distributed with the gloo backend is not available in this torch build")
    args = (module, world, _free_port(), str(out_dir), group_timeout_s, ignore_user_warnings)
    context = mp.start_processes(_worker, args=args, nprocs=world, join=False, start_method="spawn")
    deadline = time.monotonic() + timeout_s
    while not context.join(timeout=5):
        if time.monotonic() > deadline:
            for process in context.processes:
                if process.is_alive():
                    process.terminate()
            pytest.fail(f"the {world} DDP processes did not finish within {timeout_s} s")
    report = {}
    for rank in range(world):
        path = out_dir / f"rank{rank}.json"
        assert path.exists(), f"rank {rank} wrote no report"
        report[rank] = json.loads(path.read_text(encoding="utf-8"))
    return report


def problems(report: dict[int, dict[str, list[str]]], scenario: str) -> str:
    """One scenario's problems over all ranks, one per line ("" when there are none)."""
    return "\n".join(
        f"rank {rank}: {msg}" for rank in sorted(report) for msg in report[rank].get(scenario, ["missing"])
    )
