#!/usr/bin/env python3
"""Load suite: the whole path (parse, fetch, decode, resize, encode, cache, rewrite) under realistic load.

  python3 scripts/load_suite.py [--jobs 20000] [--urls 2000] [--workers 2] [--concurrency 64] [--binary PATH]

Builds a corpus of jobs (60% single image, 25% stories of 3-6 pages, 10% broken media, 5% silent) over --urls
distinct JPEGs served by nginx on loopback, runs --workers `richpush process` processes sharing one cache directory,
then runs the same jobs again on the warm cache. Prints jobs/s, job latency (p50, p99, max), origin requests per
distinct URL, peak RSS per worker, CPU (user + system) per job, and the warm pass's throughput and origin requests.
Needs nginx, Pillow and numpy (apt-get install -y nginx; pip install pillow numpy).
"""
import argparse, io, json, os, random, shutil, signal, socket, subprocess, sys, tempfile, time
from collections import Counter

ap = argparse.ArgumentParser()
ap.add_argument('--jobs', type=int, default=20000)
ap.add_argument('--urls', type=int, default=2000)
ap.add_argument('--workers', type=int, default=2)
ap.add_argument('--concurrency', type=int, default=64)
ap.add_argument('--binary', default='.build/release/richpush')
ap.add_argument('--keep', action='store_true', help='keep the work directory')
args = ap.parse_args()

import numpy as np
from PIL import Image, ImageDraw

work = tempfile.mkdtemp(prefix='richpush-load-')
os.chmod(work, 0o755)  # nginx's worker user must be able to read the media
media = os.path.join(work, 'media'); os.makedirs(media)
rng = random.Random(7)

# Distinct photo-like JPEGs: smooth gradients plus noise and a label, 1200x900, so every file decodes differently.
base_y, base_x = np.mgrid[0:900, 0:1200]
for index in range(args.urls):
    r = (base_x * (0.1 + index % 7 * 0.02) + index) % 256
    g = (base_y * (0.15 + index % 5 * 0.03) + 3 * index) % 256
    b = ((base_x + base_y) * 0.08 + 7 * index) % 256
    pixels = np.dstack([r, g, b]).astype(np.float32) + np.random.default_rng(index).normal(0, 6, (900, 1200, 3))
    image = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))
    ImageDraw.Draw(image).text((40, 40), f'campaign image {index}', fill=(255, 255, 255))
    image.save(os.path.join(media, f'{index}.jpg'), quality=88)
with open(os.path.join(media, 'broken.html'), 'w') as f:
    f.write('<html><body>502 Bad Gateway</body></html>')

def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0)); return s.getsockname()[1]

port = free_port()
access_log = os.path.join(work, 'access.log')
conf = os.path.join(work, 'nginx.conf')
with open(conf, 'w') as f:
    f.write(f'''daemon off; worker_processes 1; pid {work}/nginx.pid; error_log {work}/error.log;
events {{ worker_connections 4096; }}
http {{ log_format uri '$request_uri $status'; access_log {access_log} uri; keepalive_requests 100000;
  server {{ listen 127.0.0.1:{port}; root {media};
    location /broken/ {{ default_type image/jpeg; try_files /broken.html =404; }} }} }}''')
nginx = subprocess.Popen(['nginx', '-c', conf, '-p', work], stderr=subprocess.DEVNULL)
time.sleep(0.5)
origin = f'http://127.0.0.1:{port}'

# The job corpus. Attachment and story images come from separate pools, as in real campaigns: the cache key names
# the variant, so one URL used both as an attachment and as a story page is fetched once per variant.
attachment_pool = max(1, int(args.urls * 0.6))
jobs = []
for index in range(args.jobs):
    kind = rng.random()
    alert = {'title': f'Offer {index}', 'body': 'Tap to see what is new this week'}
    if kind < 0.60:
        payload = {'aps': {'alert': alert}, 'image_url': f'{origin}/{rng.randrange(attachment_pool)}.jpg'}
    elif kind < 0.85:
        pages = [{'image': f'{origin}/{rng.randrange(attachment_pool, args.urls)}.jpg', 'title': f'Page {p}', 'duration': 5}
                 for p in range(rng.randint(3, 6))]
        payload = {'aps': {'alert': alert}, 'pw_stories': {'pages': pages}}
    elif kind < 0.95:
        broken = f'{origin}/missing/{rng.randrange(200)}.jpg' if rng.random() < 0.5 else f'{origin}/broken/{rng.randrange(200)}.jpg'
        payload = {'aps': {'alert': alert}, 'attachment': broken}
    else:
        payload = {'aps': {'content-available': 1}, 'sync': index}
    jobs.append(json.dumps({'id': f'job-{index}', 'token': f'{index:064x}', 'payload': payload}))
inputs = []
for worker in range(args.workers):
    path = os.path.join(work, f'jobs-{worker}.ndjson')
    with open(path, 'w') as f:
        f.write('\n'.join(jobs[worker::args.workers]) + '\n')
    inputs.append(path)

cache = os.path.join(work, 'cache')

def run_pass(name):
    start_log = os.path.getsize(access_log) if os.path.exists(access_log) else 0
    started = time.monotonic()
    procs = []
    for worker, path in enumerate(inputs):
        out = open(os.path.join(work, f'{name}-{worker}.out'), 'w')
        rss = os.path.join(work, f'{name}-{worker}.rss')
        procs.append((subprocess.Popen(['/usr/bin/time', '-f', '%U %S %M', '-o', rss, args.binary, 'process',
                                        '--concurrency', str(args.concurrency), '--cache-dir', cache,
                                        '--allow-network', '127.0.0.1/32', '--log-level', 'warning', path],
                                       stdout=out, stderr=subprocess.DEVNULL), out, rss))
    finished = []
    for proc, out, rss in procs:
        proc.wait(); out.close(); finished.append(time.monotonic() - started)
    wall = time.monotonic() - started
    latencies, statuses, lines = [], Counter(), 0
    for worker in range(args.workers):
        with open(os.path.join(work, f'{name}-{worker}.out')) as f:
            for line in f:
                lines += 1
                result = json.loads(line)
                statuses[result['status']] += 1
                latencies.append(result['timings']['total_ms'])
    latencies.sort()
    with open(access_log) as f:
        f.seek(start_log); requests = [line.split()[0] for line in f if line.strip()]
    usage = [open(rss).read().strip().splitlines()[-1].split() for _, _, rss in procs]
    cpu = sum(float(user) + float(system) for user, system, _ in usage)
    return dict(wall=wall, per_worker=[len(open(p).read().splitlines()) / t for p, t in zip(inputs, finished)],
                lines=lines, statuses=statuses, latencies=latencies, requests=requests,
                peak=[int(kilobytes) // 1024 for _, _, kilobytes in usage], cpu_per_job=cpu / max(1, lines))

cold = run_pass('cold')
warm = run_pass('warm')
nginx.send_signal(signal.SIGQUIT); nginx.wait()

def pct(values, q): return values[min(len(values) - 1, int(q * len(values)))] if values else 0
image_requests = Counter(r for r in cold['requests'] if r.endswith('.jpg') and r[1].isdigit())
print(f'load suite: {args.jobs} jobs, {args.urls} distinct images, {args.workers} workers x concurrency {args.concurrency}')
print(f'| pass | jobs/s (all workers) | jobs/s per worker | CPU µs per job | p50 ms | p99 ms | max ms | origin requests | per distinct URL | peak RSS per worker (MB) |')
print('|---|---|---|---|---|---|---|---|---|---|')
for name, result in (('cold', cold), ('warm', warm)):
    images = Counter(r for r in result['requests'] if r.endswith('.jpg') and r[1].isdigit())
    per_url = (sum(images.values()) / len(image_requests)) if image_requests else 0
    print(f"| {name} | {result['lines'] / result['wall']:.0f} | {' / '.join(f'{x:.0f}' for x in result['per_worker'])} | "
          f"{result['cpu_per_job'] * 1e6:.1f} | {pct(result['latencies'], 0.5)} | {pct(result['latencies'], 0.99)} | {result['latencies'][-1] if result['latencies'] else 0} | "
          f"{len(result['requests'])} | {per_url:.2f} | {' / '.join(map(str, result['peak']))} |")
print('statuses (cold):', dict(cold['statuses']))
print('statuses (warm):', dict(warm['statuses']))
assert cold['lines'] == args.jobs and warm['lines'] == args.jobs, 'every job must get exactly one output line'
cold_images = Counter(r for r in cold['requests'] if r.endswith('.jpg') and r[1].isdigit())
assert all(count == 1 for count in cold_images.values()), 'every distinct image must be fetched exactly once'
assert not warm['requests'], 'the warm pass must make no origin request'
assert warm['statuses'] == cold['statuses'], 'the warm pass must give the same statuses'
if not args.keep: shutil.rmtree(work)
else: print('work directory:', work)
