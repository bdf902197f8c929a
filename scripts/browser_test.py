#!/usr/bin/env python3
"""Browser test of the story preview page: `richpush serve`'s page and `validate --html`'s file in headless Chromium.

  python3 scripts/browser_test.py [--binary PATH] [--artifacts DIR]

Builds nothing: it runs the newest of .build/debug/richpush and .build/release/richpush (or --binary) as
`richpush serve` on a free loopback port, with the bundled media as a local origin, and drives Debian's chromium
through selenium and /usr/bin/chromedriver. It pastes the sample story job with one broken page, submits it, and
checks the rendered story pages at 2:3, the finding beside the broken page, the lock screen and the byte count; then
the same story uploaded as a Pushwoosh request file, a URL list, an image push's thumbnail, and the self-contained
file of `validate --html` opened from disk. Screenshots
go to --artifacts (.build/artifacts). Prints `N passed, N failed`; exits 1 on any failure.
Needs chromium and chromium-driver (Debian) and selenium (PyPI); .ci/run installs them.
"""
import argparse, json, os, shutil, socket, subprocess, sys, tempfile, time, traceback, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
parser = argparse.ArgumentParser()
parser.add_argument('--binary', help='the richpush binary (default: the newest of .build/debug and .build/release)')
parser.add_argument('--artifacts', default=os.path.join(ROOT, '.build', 'artifacts'))
args = parser.parse_args()

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait


def find_binary():
    if args.binary:
        return args.binary
    built = [os.path.join(ROOT, '.build', kind, 'richpush') for kind in ('debug', 'release')]
    built = [path for path in built if os.access(path, os.X_OK)]
    if not built:
        sys.exit('browser_test: no built richpush; run swift build first (scripts/test does)')
    return max(built, key=os.path.getmtime)


def free_port():
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        return probe.getsockname()[1]


binary = find_binary()
origin = 'https://media.example.com/=' + os.path.join(ROOT, 'Fixtures', 'media')
work = tempfile.mkdtemp(prefix='richpush-browser-')
os.makedirs(args.artifacts, exist_ok=True)
for stale in os.listdir(args.artifacts):
    if stale.startswith('failed-'):
        os.remove(os.path.join(args.artifacts, stale))
port = free_port()
server_log = open(os.path.join(work, 'serve.log'), 'w')
server = subprocess.Popen(
    [binary, 'serve', '--listen', f'127.0.0.1:{port}', '--cache-dir', os.path.join(work, 'cache'), '--local-origin', origin,
     '--public-base-url', 'https://cdn.example.com/richpush'],
    stdout=subprocess.DEVNULL, stderr=server_log)
base = f'http://127.0.0.1:{port}'
for _ in range(200):
    try:
        urllib.request.urlopen(base + '/healthz', timeout=1).read()
        break
    except OSError:
        if server.poll() is not None:
            sys.exit(f'browser_test: richpush serve exited with {server.returncode}; see {server_log.name}')
        time.sleep(0.1)

options = Options()
options.binary_location = shutil.which('chromium') or '/usr/bin/chromium'
for flag in ('--headless=new', '--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--window-size=1400,1300'):
    options.add_argument(flag)
driver = webdriver.Chrome(service=Service(shutil.which('chromedriver') or '/usr/bin/chromedriver'), options=options)
wait = WebDriverWait(driver, 60)

# The sample story job (Fixtures/jobs/sample.ndjson, line 1) with its second page's image broken (an HTML page).
with open(os.path.join(ROOT, 'Fixtures', 'jobs', 'sample.ndjson')) as sample:
    jobs = sample.read().splitlines()
story_job = jobs[0].replace('story2.jpg', 'broken.jpg')
assert 'broken.jpg' in story_job, 'the sample story job no longer has story2.jpg'
image_job = jobs[1]

passed, failed = 0, 0


def check(name, test):
    global passed, failed
    try:
        test()
        passed += 1
        print(f'PASS {name}')
    except Exception:
        failed += 1
        print(f'FAIL {name}')
        traceback.print_exc()
        try:
            driver.save_screenshot(os.path.join(args.artifacts, f'failed-{name}.png'))
        except Exception:
            pass


def screenshot(name):
    """A PNG of the whole page: the window grows to the document's height first."""
    height = driver.execute_script('return document.documentElement.scrollHeight')
    driver.set_window_size(1400, min(max(height + 140, 900), 4000))
    driver.save_screenshot(os.path.join(args.artifacts, f'{name}.png'))
    driver.set_window_size(1400, 1300)


def submit(text):
    driver.get(base + '/')
    area = wait.until(expected_conditions.presence_of_element_located((By.ID, 'document')))
    area.send_keys(text)
    driver.find_element(By.ID, 'submit').click()
    wait.until(lambda d: d.find_element(By.ID, 'preview').get_attribute('data-rendered') == 'true'
               or 'failed' in (d.find_element(By.ID, 'status').get_attribute('class') or ''))
    status = driver.find_element(By.ID, 'status')
    assert 'failed' not in (status.get_attribute('class') or ''), status.text


def loaded_images(selector):
    """The images matching selector, each once it has loaded: (natural width, natural height)."""
    images = driver.find_elements(By.CSS_SELECTOR, selector)
    wait.until(lambda d: all(d.execute_script('return arguments[0].complete && arguments[0].naturalWidth > 0', image)
                             for image in images))
    return [(image.get_property('naturalWidth'), image.get_property('naturalHeight')) for image in images]


def story_pages_and_findings(label):
    pages = driver.find_elements(By.CSS_SELECTOR, '.page')
    assert [page.get_attribute('data-page') for page in pages] == ['1', '2', '3'], [p.get_attribute('data-page') for p in pages]
    shown = driver.find_elements(By.CSS_SELECTOR, '.page.shown')
    dropped = driver.find_elements(By.CSS_SELECTOR, '.page.dropped')
    assert [page.get_attribute('data-page') for page in shown] == ['1', '3']
    assert [page.get_attribute('data-page') for page in dropped] == ['2']
    sizes = loaded_images('.page.shown .screen img')
    assert sizes == [(1080, 1620), (1080, 1620)], sizes
    for page in shown:
        screen = page.find_element(By.CSS_SELECTOR, '.screen')
        ratio = screen.size['height'] / screen.size['width']
        assert abs(ratio - 1.5) < 0.02, f'story screen is {screen.size}, not 2:3'
    first = shown[0].text
    for text in ('Coats', 'Warm and light', 'Shop coats', '5 s'):
        assert text in first, f'{text!r} not on page 1: {first!r}'
    # The findings sit beside the page they concern: the media error (red) and the dropped page (amber).
    findings = dropped[0].find_elements(By.CSS_SELECTOR, 'ul.findings li')
    codes = {item.find_element(By.CSS_SELECTOR, '.code').text: item.get_attribute('class') for item in findings}
    assert codes.get('unsupported_format') == 'error', codes
    assert codes.get('story_page_dropped') == 'warning', codes
    assert driver.execute_script(
        "return getComputedStyle(arguments[0]).borderLeftColor", findings[0]) == 'rgb(198, 40, 40)'
    assert not shown[0].find_elements(By.CSS_SELECTOR, 'ul.findings li'), 'page 1 has no finding'
    notification = driver.find_element(By.CSS_SELECTOR, '.phone .notification')
    assert 'Autumn collection' in notification.text and "Swipe through this week's picks" in notification.text, notification.text
    assert '/ 4096 bytes' in driver.find_element(By.CSS_SELECTOR, '.bytes').text
    screenshot(label)


def test_page_loads_with_nothing_from_elsewhere():
    driver.get(base + '/')
    assert driver.title == 'RichPush story preview', driver.title
    assert driver.find_element(By.ID, 'preview-form').is_displayed()
    origins = driver.execute_script(
        "return performance.getEntriesByType('resource').map(function (entry) { return new URL(entry.name).origin; })")
    assert all(entry == base for entry in origins), origins
    # The page's Content-Security-Policy refuses any image that is not a data: URL.
    violated = driver.execute_async_script("""
        var done = arguments[arguments.length - 1];
        document.addEventListener('securitypolicyviolation', function (event) { done(event.effectiveDirective); });
        var image = new Image(); image.src = 'https://media.example.com/story1.jpg'; document.body.appendChild(image);
        setTimeout(function () { done(null); }, 3000);""")
    assert violated == 'img-src', violated


def test_story_with_a_broken_page():
    submit(story_job)
    story_pages_and_findings('story-preview')


def test_url_list():
    submit('# two campaign images\nhttps://media.example.com/story1.jpg\nhttps://media.example.com/logo.png\n')
    shown = driver.find_elements(By.CSS_SELECTOR, '.page.shown')
    assert len(shown) == 2, len(shown)
    # The story variant covers 2:3 and never enlarges: the small logo stays 333x500.
    sizes = loaded_images('.page.shown .screen img')
    assert len(sizes) == 2 and all(abs(height / width - 1.5) < 0.01 for width, height in sizes), sizes


def test_upload_a_pushwoosh_payload_file():
    # The story as a Pushwoosh createMessage request, uploaded instead of pasted.
    payload = json.loads(story_job)['payload']
    notification = {'content': payload['aps']['alert']['body'], 'ios_title': payload['aps']['alert']['title'],
                    'data': {'pw_stories': payload['pw_stories']}}
    path = os.path.join(work, 'pushwoosh.json')
    with open(path, 'w') as out:
        json.dump({'request': {'application': 'XXXXX-XXXXX', 'notifications': [notification]}}, out)
    driver.get(base + '/')
    driver.find_element(By.ID, 'upload').send_keys(path)
    wait.until(lambda d: d.find_element(By.ID, 'document').get_property('value').startswith('{"request"'))
    driver.find_element(By.ID, 'submit').click()
    wait.until(lambda d: d.find_element(By.ID, 'preview').get_attribute('data-rendered') == 'true')
    story_pages_and_findings('pushwoosh-upload-preview')


def test_image_push_thumbnail():
    submit(image_job)
    assert loaded_images('.phone .notification img.thumbnail')
    assert 'Back in stock' in driver.find_element(By.CSS_SELECTOR, '.phone .notification').text
    assert not driver.find_elements(By.CSS_SELECTOR, '.page')
    screenshot('image-push-preview')


def test_validate_html_file_is_self_contained():
    document = os.path.join(work, 'story.json')
    with open(document, 'w') as out:
        out.write(json.dumps(json.loads(story_job)['payload']))
    page = os.path.join(args.artifacts, 'story-preview.html')
    result = subprocess.run([binary, 'validate', '--local-origin', origin, '--cache-dir', os.path.join(work, 'cache'),
                             '--html', page, document], capture_output=True, text=True)
    assert result.returncode == 1, f'the broken page is a finding: {result.returncode} {result.stderr}'
    driver.get('file://' + page)
    assert not driver.find_element(By.ID, 'preview-form').is_displayed(), 'the file has no form'
    wait.until(lambda d: d.find_element(By.ID, 'preview').get_attribute('data-rendered') == 'true')
    story_pages_and_findings('story-preview-file')
    sources = driver.execute_script("return Array.from(document.images).map(function (image) { return image.src; })")
    assert sources and all(source.startswith('data:image/') for source in sources), 'images are inlined'


try:
    check('page_loads_with_nothing_from_elsewhere', test_page_loads_with_nothing_from_elsewhere)
    check('story_with_a_broken_page', test_story_with_a_broken_page)
    check('url_list', test_url_list)
    check('upload_a_pushwoosh_payload_file', test_upload_a_pushwoosh_payload_file)
    check('image_push_thumbnail', test_image_push_thumbnail)
    check('validate_html_file_is_self_contained', test_validate_html_file_is_self_contained)
finally:
    driver.quit()
    server.terminate()
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
    shutil.rmtree(work, ignore_errors=True)

print(f'screenshots in {args.artifacts}')
print(f'{passed} passed, {failed} failed')
sys.exit(1 if failed else 0)
