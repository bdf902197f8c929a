#!/usr/bin/env python3
"""Browser test of the story preview page: `richpush serve`'s page and `validate --html`'s file in headless Chromium.

  python3 scripts/browser_test.py [--binary PATH] [--artifacts DIR]

Builds nothing: it runs the newest of .build/debug/richpush and .build/release/richpush (or --binary) as
`richpush serve` on a free loopback port, with the bundled media as a local origin, and drives Debian's chromium
through selenium and /usr/bin/chromedriver. It pastes the sample story job with one broken page, submits it, and
checks the phone-sized story viewer (the pages the phone shows, at 1080x1620, the button with its link), the findings,
the lock-screen notification and the byte count; then the same story uploaded as a Pushwoosh request file, a URL
list, an image push's thumbnail, and the self-contained file of `validate --html` opened from disk; then the viewer
itself: progress bars that advance with each page's duration, taps on the left and right half, a button that shows
its link and does not navigate, a 300-character title that stays inside its card, the Android card (large icon
collapsed, big picture expanded) beside the iPhone one, the fallback alert card, and the
not-JSON and rejected states. Screenshots go to --artifacts (.build/artifacts). Prints `N passed, N failed`; exits 1
on any failure.
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
from selenium.webdriver.common.action_chains import ActionChains
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


def viewer():
    return driver.find_element(By.CSS_SELECTOR, '.viewer.story')


def fill_widths(story):
    """Each progress bar's fill, in percent of its bar."""
    return driver.execute_script("""
        return Array.from(arguments[0].querySelectorAll('.progress .bar')).map(function (bar) {
          return 100 * bar.querySelector('.fill').getBoundingClientRect().width / bar.getBoundingClientRect().width; });""", story)


def tap(element, side):
    """A click on the left or right half of element, a quarter of its width from its centre."""
    offset = element.size['width'] // 4
    ActionChains(driver).move_to_element_with_offset(element, -offset if side == 'left' else offset, 0).click().perform()


def story_pages_and_findings(label):
    story = viewer()
    # Page 2's image is broken: the phone shows pages 1 and 3 of the sender's, as its pages 1 and 2.
    assert story.get_attribute('data-pages') == '2', story.get_attribute('data-pages')
    assert story.get_attribute('data-page') == '1'
    sizes = loaded_images('.viewer.story .slide img')
    assert sizes == [(1080, 1620), (1080, 1620)], sizes
    # Phone-sized, and the story fills the whole screen.
    assert 280 <= story.size['width'] <= 340 and 1.9 <= story.size['height'] / story.size['width'] <= 2.3, story.size
    image = story.find_element(By.CSS_SELECTOR, '.slide.current img')
    assert (image.size['width'], image.size['height']) == (story.size['width'], story.size['height']), image.size
    first = story.find_element(By.CSS_SELECTOR, '.slide.current').text
    for text in ('Coats', 'Warm and light', 'Shop coats', 'https://shop.example.com/coats'):
        assert text in first, f'{text!r} not on page 1: {first!r}'
    button = story.find_element(By.CSS_SELECTOR, '.slide.current .story-button')
    assert button.tag_name == 'button', button.tag_name
    assert '5 s' in driver.find_element(By.CSS_SELECTOR, '.page-details').text
    # Every finding is listed: the media error (red) and the dropped page (amber).
    findings = driver.find_elements(By.CSS_SELECTOR, '.summary > ul.findings li')
    codes = {item.find_element(By.CSS_SELECTOR, '.code').text: item.get_attribute('class') for item in findings}
    assert codes.get('unsupported_format') == 'error', codes
    assert codes.get('story_page_dropped') == 'warning', codes
    red = [item for item in findings if item.get_attribute('class') == 'error'][0]
    assert driver.execute_script("return getComputedStyle(arguments[0]).borderLeftColor", red) == 'rgb(198, 40, 40)'
    notification = driver.find_element(By.CSS_SELECTOR, '.lock-preview .notification')
    assert 'Autumn collection' in notification.text and "Swipe through this week's picks" in notification.text, notification.text
    assert '/ 4096 bytes' in driver.find_element(By.CSS_SELECTOR, '.bytes').text
    assert 'Media fetched and rendered' not in driver.find_element(By.CSS_SELECTOR, '.overall').text, 'one image failed'
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
    assert viewer().get_attribute('data-pages') == '2'
    # The story variant covers 2:3 and never enlarges: the small logo stays 333x500, and the author is warned.
    sizes = loaded_images('.viewer.story .slide img')
    assert len(sizes) == 2 and all(abs(height / width - 1.5) < 0.01 for width, height in sizes), sizes
    codes = [item.text for item in driver.find_elements(By.CSS_SELECTOR, '.summary > ul.findings li .code')]
    assert 'image_upscaled' in codes, codes
    assert 'Media fetched and rendered (2 of 2).' in driver.find_element(By.CSS_SELECTOR, '.overall').text


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
    assert loaded_images('.phone .lock .notification img.thumbnail')
    assert 'Back in stock' in driver.find_element(By.CSS_SELECTOR, '.phone .lock .notification').text
    assert not driver.find_elements(By.CSS_SELECTOR, '.viewer.story')
    screenshot('image-push-preview')


def test_android_notification_beside_the_iphone_one():
    submit(json.dumps({'app_id': 'a', 'headings': {'en': 'Back in stock'}, 'contents': {'en': 'The jacket'},
                       'ios_attachments': {'p': 'https://media.example.com/hero.jpg'},
                       'big_picture': 'https://media.example.com/hero.jpg',
                       'large_icon': 'https://media.example.com/logo.png'}))
    assert loaded_images('.phone .lock .notification img.thumbnail'), 'the iPhone card keeps its attachment'
    android = driver.find_element(By.CSS_SELECTOR, '.android')
    assert 'Back in stock' in android.text
    icons = loaded_images('.android .android-collapsed img.large-icon')
    pictures = loaded_images('.android .android-expanded img.big-picture')
    assert icons == [(256, 256)], icons
    assert pictures == [(1440, 1080)], pictures
    platforms = [cell.text for cell in driver.find_elements(By.CSS_SELECTOR, 'table.media tr td:nth-child(2)')]
    assert platforms == ['ios', 'android', 'android'], platforms
    screenshot('android-preview')


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


def story_document(pages, alert=None):
    return json.dumps({'aps': {'alert': alert or {'title': 'Viewer', 'body': 'Test'}}, 'pw_stories': {'pages': pages}})


def test_progress_advances_with_each_pages_duration():
    submit(story_document([
        {'image': 'https://media.example.com/story1.jpg', 'title': 'One', 'duration': 2},
        {'image': 'https://media.example.com/story3.jpg', 'title': 'Two', 'duration': 30}]))
    story = viewer()
    loaded_images('.viewer.story .slide img')
    assert story.get_attribute('data-page') == '1'
    early = fill_widths(story)
    time.sleep(0.8)
    later = fill_widths(story)
    assert 0 < later[0] < 100 and later[0] > early[0], (early, later)
    assert later[1] == 0, later
    # Two seconds later page 1 is done: its bar is full and page 2 plays.
    WebDriverWait(driver, 5).until(lambda d: story.get_attribute('data-page') == '2')
    widths = fill_widths(story)
    assert widths[0] == 100 and widths[1] < 50, widths
    assert 'Two' in story.find_element(By.CSS_SELECTOR, '.slide.current').text
    assert '30 s' in driver.find_element(By.CSS_SELECTOR, '.page-details').text
    screenshot('story-viewer-progress')


def test_tap_left_and_right_and_the_sdk_default_duration():
    submit(story_document([
        {'image': 'https://media.example.com/story1.jpg', 'title': 'One'},
        {'image': 'https://media.example.com/story2.jpg', 'title': 'Two'},
        {'image': 'https://media.example.com/hero.jpg', 'title': 'Three'}]))
    story = viewer()
    details = driver.find_element(By.CSS_SELECTOR, '.page-details')
    assert "5 s (the SDK's default)" in details.text and 'No findings on this page.' in details.text, details.text
    pages = []
    for side in ('right', 'right', 'left', 'left', 'left'):
        tap(story, side)
        pages.append(story.get_attribute('data-page'))
    assert pages == ['2', '3', '2', '1', '1'], pages
    # The side panel follows the page: the landscape page 3 carries its crop warning with the figure.
    tap(story, 'right'); tap(story, 'right')
    details = driver.find_element(By.CSS_SELECTOR, '.page-details').text
    assert 'Page 3 of 3' in details and 'story_crop_heavy' in details and 'cuts away 50%' in details, details
    screenshot('story-viewer-crop-warning')
    tap(story, 'left'); tap(story, 'left')
    assert 'One' in story.find_element(By.CSS_SELECTOR, '.slide.current').text
    tap(story, 'right'); tap(story, 'right'); tap(story, 'right')
    assert story.get_attribute('data-finished') == 'true', 'a tap on the last page closes the story'
    assert fill_widths(story) == [100, 100, 100]
    tap(story, 'left')
    assert story.get_attribute('data-page') == '1' and story.get_attribute('data-finished') == 'false', 'replay'


def test_button_shows_its_link_and_does_not_navigate():
    link = 'myapp://offers/autumn?id=42'
    submit(story_document([
        {'image': 'https://media.example.com/story1.jpg', 'title': 'One', 'link': link, 'button_title': 'See offers'},
        {'image': 'https://media.example.com/story3.jpg', 'title': 'Two'}]))
    story = viewer()
    button = story.find_element(By.CSS_SELECTOR, '.slide.current .story-button')
    assert button.tag_name == 'button'
    assert 'See offers' in button.text and link in button.text, button.text
    page_url = driver.current_url
    button.click()
    toast = story.find_element(By.CSS_SELECTOR, '.toast')
    assert toast.is_displayed() and link in toast.text, toast.text
    assert driver.current_url == page_url, driver.current_url
    assert story.get_attribute('data-page') == '1', 'the button is not a tap on the page'
    screenshot('story-viewer-button')


def test_long_title_stays_inside_its_card():
    long_title = ('Autumn ' * 30 + 'x' * 90)[:300]
    assert len(long_title) == 300
    submit(story_document([{'image': 'https://media.example.com/story1.jpg', 'title': long_title,
                            'subtitle': 'y' * 200, 'link': 'https://shop.example.com/' + 'z' * 150, 'button_title': 'Shop'}],
                          alert={'title': long_title, 'body': long_title}))
    story = viewer()
    inside = driver.execute_script("""
        var viewer = arguments[0].getBoundingClientRect();
        return Array.from(arguments[0].querySelectorAll('.slide.current .caption *')).map(function (node) {
          var box = node.getBoundingClientRect();
          return [node.className, box.left >= viewer.left - 0.5 && box.right <= viewer.right + 0.5 && box.top >= viewer.top - 0.5
                  && box.bottom <= viewer.bottom + 0.5 && node.scrollWidth <= node.clientWidth + 1]; });""", story)
    assert inside and all(ok for _, ok in inside), inside
    title = story.find_element(By.CSS_SELECTOR, '.slide.current .title')
    assert title.size['height'] < 100, f'the title is clamped to a few lines: {title.size}'
    card = driver.find_element(By.CSS_SELECTOR, '.lock-preview .notification')
    assert driver.execute_script('return arguments[0].scrollWidth <= arguments[0].clientWidth + 1', card), 'the alert card wraps'
    screenshot('story-viewer-long-title')


def test_no_usable_story_shows_the_plain_alert_card():
    submit(json.dumps({'aps': {'alert': {'title': 'Hello', 'body': 'World'}}, 'pw_stories': {'pages': [{'title': 'no image'}]}}))
    assert not driver.find_elements(By.CSS_SELECTOR, '.viewer.story')
    card = driver.find_element(By.CSS_SELECTOR, '.phone .lock .notification')
    assert 'Hello' in card.text and 'World' in card.text, card.text
    assert 'plain alert' in driver.find_element(By.CSS_SELECTOR, '.phone .lock .note').text
    assert driver.find_element(By.CSS_SELECTOR, 'section.job').get_attribute('data-state') == 'alert'
    screenshot('story-fallback-alert')


def test_not_json_and_rejected_states():
    submit('hello world')
    section = driver.find_element(By.CSS_SELECTOR, 'section.job')
    assert section.get_attribute('data-state') == 'not_json', section.get_attribute('data-state')
    assert section.find_element(By.CSS_SELECTOR, 'h2 .badge').text.lower() == 'not json'
    assert not driver.find_elements(By.CSS_SELECTOR, '.badge.passthrough'), 'no PASSTHROUGH badge'
    assert not driver.find_elements(By.CSS_SELECTOR, '.viewer.story'), 'no one-page story'
    state = driver.find_element(By.CSS_SELECTOR, '.phone .state.not-json').text
    assert 'Not JSON' in state and 'line 1, column 1' in state, state
    assert driver.find_element(By.CSS_SELECTOR, '.overall').text.endswith('Not JSON: nothing would be sent.')
    screenshot('not-json')
    submit(json.dumps({'aps': 'x', 'image_url': 'https://media.example.com/hero.jpg'}))
    state = driver.find_element(By.CSS_SELECTOR, '.phone .state.rejected').text
    assert 'Rejected' in state and 'aps is a string' in state, state
    overall = driver.find_element(By.CSS_SELECTOR, '.overall').text
    assert 'rendered' not in overall and 'Rejected: nothing would be sent.' in overall, overall
    submit(json.dumps({'aps': {'alert': 'plain text only'}}))
    assert 'Nothing fetched: the push names no media.' in driver.find_element(By.CSS_SELECTOR, '.overall').text


try:
    check('page_loads_with_nothing_from_elsewhere', test_page_loads_with_nothing_from_elsewhere)
    check('story_with_a_broken_page', test_story_with_a_broken_page)
    check('url_list', test_url_list)
    check('upload_a_pushwoosh_payload_file', test_upload_a_pushwoosh_payload_file)
    check('image_push_thumbnail', test_image_push_thumbnail)
    check('android_notification_beside_the_iphone_one', test_android_notification_beside_the_iphone_one)
    check('validate_html_file_is_self_contained', test_validate_html_file_is_self_contained)
    check('progress_advances_with_each_pages_duration', test_progress_advances_with_each_pages_duration)
    check('tap_left_and_right_and_the_sdk_default_duration', test_tap_left_and_right_and_the_sdk_default_duration)
    check('button_shows_its_link_and_does_not_navigate', test_button_shows_its_link_and_does_not_navigate)
    check('long_title_stays_inside_its_card', test_long_title_stays_inside_its_card)
    check('no_usable_story_shows_the_plain_alert_card', test_no_usable_story_shows_the_plain_alert_card)
    check('not_json_and_rejected_states', test_not_json_and_rejected_states)
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
