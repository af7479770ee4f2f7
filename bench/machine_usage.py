#!/usr/bin/env python3
"""Which of the machine's resources a batch uses up: samples the CPUs (/proc/stat) and the GPU
(nvidia-smi's utilization, the share of time some kernel ran) every half second until stopped
(SIGTERM or SIGINT), then prints the mean and how much of the time each stood near its limit.
Usage: machine_usage.py OUT_TSV &  ... ; kill %1 (the summary goes to stdout)."""
import signal
import subprocess
import sys
import time

stop = False


def on_signal(*_):
    global stop
    stop = True


def cpu_times():
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle and iowait
    return sum(fields), idle


def gpu_utilization(smi):
    """Each GPU's utilization in percent from one long-running nvidia-smi, or [] without one."""
    if smi is None:
        return []
    line = smi.stdout.readline().strip()
    return [int(x) for x in line.split(",") if x.strip().isdigit()]


def main():
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        smi = subprocess.Popen(["nvidia-smi", "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits",
                                "-lms", "500"], stdout=subprocess.PIPE, text=True)
    except OSError:
        smi = None
    cpu, gpu = [], []
    with open(sys.argv[1], "w") as out:
        out.write("seconds\tcpu_busy_percent\tgpu_utilization_percent\n")
        start = time.time()
        last = cpu_times()
        while not stop:
            time.sleep(0.5)
            now = cpu_times()
            total, idle = now[0] - last[0], now[1] - last[1]
            last = now
            busy = 100.0 * (total - idle) / total if total else 0.0
            util = gpu_utilization(smi) if not stop else []
            cpu.append(busy)
            if util:
                gpu.append(max(util))
            out.write(f"{time.time() - start:.1f}\t{busy:.0f}\t{max(util) if util else ''}\n")
    if smi is not None:
        smi.terminate()
    if not cpu:
        return
    print(f"CPU busy, mean                     {sum(cpu) / len(cpu):6.1f}%"
          f"   (at 90% or more {100 * sum(b >= 90 for b in cpu) / len(cpu):.0f}% of the time)")
    if gpu:
        print(f"GPU utilization, mean              {sum(gpu) / len(gpu):6.1f}%"
              f"   (at 90% or more {100 * sum(g >= 90 for g in gpu) / len(gpu):.0f}% of the time)")


if __name__ == "__main__":
    main()
