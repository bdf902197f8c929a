#!/usr/bin/env python3
"""Queue benchmark: `richpush consume` (2 consumers on one Redis Stream) beside `richpush process` on the same jobs.

  python3 scripts/consume_bench.py [--jobs 20000] [--consumers 2] [--concurrency 64] [--binary PATH]

The jobs are image pushes over a few bundled images, served from Fixtures/media through a local origin and
prewarmed first, so both runs measure the queue and the pipeline on a warm cache, not image work. Prints jobs/s of
each, their ratio, and Redis round trips per job from the consumers' summaries. Needs redis-server and redis-cli.
"""
import argparse, json, os, shutil, signal, socket, subprocess, sys, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument('--jobs', type=int, default=20000)
ap.add_argument('--consumers', type=int, default=2)
ap.add_argument('--concurrency', type=int, default=64)
ap.add_argument('--binary', default='.build/release/richpush')
args = ap.parse_args()

work = tempfile.mkdtemp(prefix='richpush-consume-')
with socket.socket() as s:
    s.bind(('127.0.0.1', 0)); port = s.getsockname()[1]
redis = subprocess.Popen(['redis-server', '--port', str(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no',
                          '--dir', work], stdout=subprocess.DEVNULL)
time.sleep(0.5)
images = ['hero.jpg', 'story1.jpg', 'story2.jpg', 'story3.jpg']
origin = ['--local-origin', 'https://media.example.com/=' + os.path.abspath('Fixtures/media')]
common = ['--cache-dir', os.path.join(work, 'cache'), '--concurrency', str(args.concurrency), '--log-level', 'warning'] + origin
jobs = [json.dumps({'id': f'q{i}', 'payload': {'aps': {'alert': {'title': 'T', 'body': 'B'}},
                                               'image_url': f'https://media.example.com/{images[i % len(images)]}'}})
        for i in range(args.jobs)]
jobs_file = os.path.join(work, 'jobs.ndjson')
with open(jobs_file, 'w') as f: f.write('\n'.join(jobs) + '\n')
subprocess.run([args.binary, 'prewarm', '--allow-failures'] + common + [jobs_file], check=True, stderr=subprocess.DEVNULL)

# process: the same jobs split between the same number of processes.
parts = []
for k in range(args.consumers):
    path = os.path.join(work, f'part{k}.ndjson')
    with open(path, 'w') as f: f.write('\n'.join(jobs[k::args.consumers]) + '\n')
    parts.append(path)
started = time.monotonic()
procs = [subprocess.Popen([args.binary, 'process'] + common + [p], stdout=subprocess.DEVNULL) for p in parts]
for p in procs: p.wait()
process_rate = args.jobs / (time.monotonic() - started)

# consume: load the stream first (redis-cli --pipe), then time the consumers draining it.
pipe_input = ''.join(f'*5\r\n$4\r\nXADD\r\n$4\r\njobs\r\n$1\r\n*\r\n$3\r\njob\r\n${len(j.encode())}\r\n{j}\r\n' for j in jobs)
subprocess.run(['redis-cli', '-p', str(port), '--pipe'], input=pipe_input.encode(), check=True, stdout=subprocess.DEVNULL)
started = time.monotonic()
consumers = [subprocess.Popen([args.binary, 'consume', '--redis', f'redis://127.0.0.1:{port}/0', '--stream', 'jobs',
                               '--results-stream', 'results', '--consumer', f'c{k}', '--log-level', 'info'] + common,
                              stderr=subprocess.PIPE, text=True) for k in range(args.consumers)]
while int(subprocess.run(['redis-cli', '-p', str(port), 'XLEN', 'results'], capture_output=True, text=True).stdout or 0) < args.jobs:
    time.sleep(0.02)
consume_rate = args.jobs / (time.monotonic() - started)
trips = 0.0
for c in consumers:
    c.send_signal(signal.SIGTERM)
    _, err = c.communicate()
    for line in err.splitlines():
        if '"summary"' in line:
            trips += float(json.loads(line).get("round_trips", 0)); print(line, file=sys.stderr)
redis.terminate(); redis.wait()
shutil.rmtree(work)
print(f'| jobs | consumers | process jobs/s | consume jobs/s | consume / process | Redis round trips per job |')
print(f'|---|---|---|---|---|---|')
print(f'| {args.jobs} | {args.consumers} | {process_rate:.0f} | {consume_rate:.0f} | {consume_rate / process_rate:.2f} | {trips / args.jobs:.2f} |')
