# SPDX-License-Identifier: Apache-2.0
"""One task of selftests/bench's peers phase through pyroute2.

The same tasks, flags and output as the Go peers command (main.go beside
this file): python3 pyroute2_peer.py -task dump|change|add|version [-dev D]
[-parent P] [-n N] [-rate BITS] [-prefix P]. Prints "NANOSECONDS COUNT 0";
a task pyroute2 cannot do exits 1 with the reason on standard error.
"""
import argparse
import sys
import time

try:
    from pyroute2 import IPRoute
except ImportError as e:  # the bench says pyroute2 is not run, and why
    sys.exit('pyroute2_peer: %s' % e)


def main():
    p = argparse.ArgumentParser()
    p.add_argument('-task', default='dump')
    p.add_argument('-dev', default='ifb0')
    p.add_argument('-parent', type=int, default=1)
    p.add_argument('-n', type=int, default=2000)
    p.add_argument('-rate', type=int, default=10_000_000)
    p.add_argument('-prefix', default='p')
    a = p.parse_args()
    if a.task == 'version':
        from importlib.metadata import version
        print('pyroute2', version('pyroute2'), 'on python', sys.version.split()[0])
        return
    ipr = IPRoute()
    count = 0
    start = time.perf_counter_ns()
    if a.task == 'dump':
        idx = ipr.link_lookup(ifname=a.dev)[0]
        classes = ipr.get_classes(index=idx)
        elapsed = time.perf_counter_ns() - start
        for c in classes:
            s = c.get_attr('TCA_STATS2')
            if s is not None and s.get_attr('TCA_STATS_BASIC') is not None:
                count += 1
    elif a.task == 'change':
        idx = ipr.link_lookup(ifname=a.dev)[0]
        rate = '%dbit' % a.rate
        for i in range(1, a.n + 1):
            ipr.tc('change-class', 'htb', idx, (a.parent << 16) | i,
                   parent=a.parent << 16, rate=rate, ceil=rate)
            count += 1
        elapsed = time.perf_counter_ns() - start
    elif a.task == 'add':
        index = {link.get_attr('IFLA_IFNAME'): link['index'] for link in ipr.get_links()}
        for i in range(a.n):
            ipr.tc('add', 'htb', index['%s%d' % (a.prefix, i)], 0x10000, default=0x10)
            count += 1
        elapsed = time.perf_counter_ns() - start
    else:
        sys.exit('pyroute2_peer: no task %r' % a.task)
    ipr.close()
    print(elapsed, count, 0)


if __name__ == '__main__':
    try:
        main()
    except Exception as e:  # the bench reports it as pyroute2's failure
        sys.exit('pyroute2_peer: %s: %s' % (type(e).__name__, e))
