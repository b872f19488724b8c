"""The GIL is released while graphkit works, and Ctrl-C stops a long call."""
import os
import signal
import threading
import time

import pytest
from conftest import DATASETS

gk = pytest.importorskip("graphkit")


def test_gil_released_during_a_call(device):
    ticks = 0
    stop = threading.Event()

    def count():
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            time.sleep(0.001)

    counter = threading.Thread(target=count)
    counter.start()
    start = time.perf_counter()
    gk.sssp(DATASETS / "rome99.gr", sources=40, device=device)
    elapsed = time.perf_counter() - start
    stop.set()
    counter.join()
    # With the GIL held the counter would not move at all during the call.
    assert ticks > 0.2 * elapsed / 0.001 or elapsed < 0.05


def test_ctrl_c_stops_between_sources(device):
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    start = time.perf_counter()
    try:
        with pytest.raises(KeyboardInterrupt):
            # 20,000 sources: seconds on either device, far longer than the timer.
            gk.sssp(DATASETS / "rome99.gr", sources=20_000, device=device)
    finally:
        timer.cancel()
    assert time.perf_counter() - start < 30
    # The module still works afterwards.
    assert gk.sssp(DATASETS / "rome99.gr", 1, device=device)[0] == 0
