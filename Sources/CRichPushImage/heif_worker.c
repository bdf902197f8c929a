// libheif decodes in a forked child that the render thread can abandon: libheif 1.15 cannot cancel a decode,
// so a decode that outlives its deadline is killed (SIGKILL) and reaped, and its core is really freed. The child
// runs only this file's C and libheif (never the Swift runtime), and leaves with _exit().
#define _GNU_SOURCE
#include "CRichPushImage.h"

#include <errno.h>
#include <fcntl.h>
#include <libheif/heif.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

// The first page of the shared mapping: what the child reports. The pixels follow it.
typedef struct {
    volatile int status;   // 0 nothing (the child died first), 1 decoded, 2 libheif error, 3 unexpected image
    int error_code;
    int width, height;
    char message[256];
} shared_report;

enum { report_bytes = 4096, poll_milliseconds = 5 };

// Held by every libheif call in the parent and across fork(): a child must not start while another thread is
// inside libheif holding one of its locks, which the child would then wait on for ever.
static pthread_mutex_t libheif_lock = PTHREAD_MUTEX_INITIALIZER;

void richpush_heif_lock(void) { pthread_mutex_lock(&libheif_lock); }
void richpush_heif_unlock(void) { pthread_mutex_unlock(&libheif_lock); }

// The child's address space now, in bytes (from /proc/self/statm with plain system calls), or 0 if unknown.
static size_t current_address_space(void) {
    char text[64] = {0};
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t length = read(fd, text, sizeof text - 1);
    close(fd);
    if (length <= 0) return 0;
    size_t pages = 0;
    for (ssize_t index = 0; index < length && text[index] >= '0' && text[index] <= '9'; index++)
        pages = pages * 10 + (size_t)(text[index] - '0');
    return pages * (size_t)sysconf(_SC_PAGESIZE);
}

static void report(shared_report *shared, int status, int error_code, const char *message) {
    shared->error_code = error_code;
    snprintf(shared->message, sizeof shared->message, "%s", message ? message : "");
    __atomic_store_n(&shared->status, status, __ATOMIC_RELEASE);
}

// Decodes into the mapping and reports through its first page; frees what it allocated (the fuzzer's in-process
// mode runs it under LeakSanitizer).
static void decode_into(struct heif_image_handle *handle, int channels, size_t capacity, uint8_t *mapping) {
    shared_report *shared = (shared_report *)mapping;
    struct heif_decoding_options *options = heif_decoding_options_alloc();
    if (!options) { report(shared, 2, heif_error_Memory_allocation_error, "libheif options could not be created"); return; }
    options->convert_hdr_to_8bit = 1;
    options->ignore_transformations = 0;
    struct heif_image *image = NULL;
    struct heif_error error = heif_decode_image(handle, &image, heif_colorspace_RGB,
                                                channels == 4 ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB,
                                                options);
    heif_decoding_options_free(options);
    if (error.code != heif_error_Ok || !image) {
        report(shared, 2, error.code == heif_error_Ok ? heif_error_Decoder_plugin_error : (int)error.code,
               error.code == heif_error_Ok ? "libheif returned no image" : error.message);
        if (image) heif_image_release(image);
        return;
    }
    int width = heif_image_get_width(image, heif_channel_interleaved);
    int height = heif_image_get_height(image, heif_channel_interleaved);
    int stride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
    size_t row_bytes = (size_t)(width > 0 ? width : 0) * (size_t)channels;
    shared->width = width;
    shared->height = height;
    if (width <= 0 || height <= 0 || !plane || heif_image_get_bits_per_pixel(image, heif_channel_interleaved) != channels * 8
        || (size_t)stride < row_bytes) {
        report(shared, 3, 0, "libheif returned an unexpected image layout");
    } else if (row_bytes * (size_t)height > capacity) {
        report(shared, 3, 0, "libheif returned an image larger than its header declares");
    } else {
        for (int row = 0; row < height; row++)
            memcpy(mapping + report_bytes + (size_t)row * row_bytes, plane + (size_t)row * (size_t)stride, row_bytes);
        report(shared, 1, 0, NULL);
    }
    heif_image_release(image);
}

__attribute__((noreturn))
static void decode_in_child(struct heif_image_handle *handle, int channels, size_t capacity, long cpu_seconds,
                            size_t memory_bytes, pid_t parent, uint8_t *mapping) {
    // Signals the parent handles (its Swift handlers) must not run here; a crash is still fatal, as the kernel
    // resets a blocked synchronous signal to its default action.
    // SIGXCPU, RLIMIT_CPU's signal, is the one left to its default action: it ends the child (without a core).
    sigset_t all;
    sigfillset(&all);
    sigdelset(&all, SIGXCPU);
    signal(SIGXCPU, SIG_DFL);
    sigprocmask(SIG_SETMASK, &all, NULL);
    struct rlimit no_core = { 0, 0 };
    setrlimit(RLIMIT_CORE, &no_core);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);
    // Only the mapping is needed: the parent's sockets and files are closed so they close when the parent says.
    syscall(SYS_close_range, 3U, ~0U, 0U);
    struct rlimit cpu = { (rlim_t)cpu_seconds, (rlim_t)cpu_seconds + 1 };
    setrlimit(RLIMIT_CPU, &cpu);
    size_t now = current_address_space();
    if (now > 0 && memory_bytes > 0) {
        struct rlimit space = { (rlim_t)(now + memory_bytes), (rlim_t)(now + memory_bytes) };
        setrlimit(RLIMIT_AS, &space);
    }
    decode_into(handle, channels, capacity, mapping);
    _exit(0);
}

static int in_process_for_fuzzing = 0;

void richpush_heif_decode_in_process_for_fuzzing(int enabled) { in_process_for_fuzzing = enabled; }

// Waits for the child, asking `stop` every few milliseconds; kills it when `stop` says so. Always reaps it.
// Returns 1 when it was stopped, 0 when it ended on its own (*status set), -1 when waiting failed.
static int wait_for_child(pid_t child, richpush_stop_check stop, void *stop_context, int *status) {
    int pidfd = (int)syscall(SYS_pidfd_open, child, 0);
    for (;;) {
        pid_t done;
        do { done = waitpid(child, status, WNOHANG); } while (done < 0 && errno == EINTR);
        if (done == child) { if (pidfd >= 0) close(pidfd); return 0; }
        if (done < 0) { if (pidfd >= 0) close(pidfd); return -1; }
        if (stop && stop(stop_context)) {
            kill(child, SIGKILL);
            while (waitpid(child, status, 0) < 0 && errno == EINTR) {}
            if (pidfd >= 0) close(pidfd);
            return 1;
        }
        if (pidfd >= 0) {
            struct pollfd ready = { pidfd, POLLIN, 0 };
            poll(&ready, 1, poll_milliseconds);
        } else {
            struct timespec pause = { 0, 1000000 };   // kernels without pidfd_open (before 5.3): poll every 1 ms
            nanosleep(&pause, NULL);
        }
    }
}

int richpush_heif_decode_isolated(struct heif_image_handle *handle, int channels, size_t capacity, long cpu_seconds,
                                  size_t memory_bytes, richpush_stop_check stop, void *stop_context,
                                  uint8_t **pixels, size_t *mapping_size, richpush_heif_outcome *outcome) {
    memset(outcome, 0, sizeof *outcome);
    *pixels = NULL;
    *mapping_size = 0;
    size_t size = report_bytes + capacity;
    uint8_t *mapping = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mapping == MAP_FAILED) {
        snprintf(outcome->message, sizeof outcome->message, "cannot map %zu bytes for the decoded image: %s", size, strerror(errno));
        return -1;
    }
    if (in_process_for_fuzzing) {
        decode_into(handle, channels, capacity, mapping);
        shared_report *shared = (shared_report *)mapping;
        outcome->width = shared->width;
        outcome->height = shared->height;
        outcome->error_code = shared->error_code;
        memcpy(outcome->message, shared->message, sizeof outcome->message);
        if (shared->status != 1) { munmap(mapping, size); return -1; }
        *pixels = mapping + report_bytes;
        *mapping_size = size;
        return 0;
    }
    pid_t parent = getpid();
    pthread_mutex_lock(&libheif_lock);
    pid_t child = fork();
    if (child == 0) decode_in_child(handle, channels, capacity, cpu_seconds, memory_bytes, parent, mapping);
    int fork_error = errno;
    pthread_mutex_unlock(&libheif_lock);
    if (child < 0) {
        munmap(mapping, size);
        snprintf(outcome->message, sizeof outcome->message, "cannot start the decode worker: %s", strerror(fork_error));
        return -1;
    }

    int status = 0;
    int waited = wait_for_child(child, stop, stop_context, &status);
    shared_report *shared = (shared_report *)mapping;
    int reported = __atomic_load_n(&shared->status, __ATOMIC_ACQUIRE);
    if (waited == 1) { munmap(mapping, size); return -2; }
    if (waited < 0 || reported == 0) {
        if (waited < 0) snprintf(outcome->message, sizeof outcome->message, "lost the decode worker: %s", strerror(errno));
        else if (WIFSIGNALED(status))
            snprintf(outcome->message, sizeof outcome->message, "the decode worker was ended by signal %d (%s)",
                     WTERMSIG(status), WTERMSIG(status) == SIGXCPU ? "its CPU limit" : strsignal(WTERMSIG(status)));
        else snprintf(outcome->message, sizeof outcome->message, "the decode worker exited with status %d", WEXITSTATUS(status));
        munmap(mapping, size);
        return -3;
    }
    outcome->width = shared->width;
    outcome->height = shared->height;
    outcome->error_code = shared->error_code;
    memcpy(outcome->message, shared->message, sizeof outcome->message);
    outcome->message[sizeof outcome->message - 1] = 0;
    if (reported != 1) { munmap(mapping, size); return -1; }
    *pixels = mapping + report_bytes;
    *mapping_size = size;
    return 0;
}

void richpush_heif_release(uint8_t *pixels, size_t mapping_size) {
    if (pixels) munmap(pixels - report_bytes, mapping_size);
}
