/*
 * features_cxx.cpp — a C++ program that uses what the pthread layer covers
 * of the standard library's threads and checks, with assert, what the
 * standard promises of each whatever the schedule: std::thread (join,
 * detach, get_id, hardware_concurrency), the mutexes and their locks
 * (timed and shared ones too), condition_variable with and without a
 * deadline, condition_variable_any, std::atomic, call_once,
 * thread_local (with a destructor), a function-local static's guard,
 * exceptions thrown and caught on a thread's own stack while others
 * switch in, sleep_for and sleep_until on the logical clock.  The test
 * (tests/test_pthread.sh) fuzzes it and expects no failure.
 */
#include <atomic>
#include <cassert>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace std::chrono_literals;

static const int WORKERS = 3;

static std::mutex lock, other;
static std::recursive_mutex recursive;
static std::timed_mutex timed;
static std::shared_mutex table_lock;
static std::condition_variable changed;
static std::condition_variable_any changed_any;
static int table_value;                      /* under table_lock */
static bool table_written;                   /* under lock */
static int done_count;                       /* under lock */
static std::atomic<int> once_calls, constructed, destroyed, caught, total;
static std::once_flag once;

struct counted {
    int value = 7;
    counted() { constructed++; }
    ~counted() { destroyed++; }
};

static thread_local counted mine;            /* a destructor at each thread's end */
static thread_local int plain = 5;

/* A function-local static: its constructor runs once, however many ask. */
static int &shared_table() {
    static int table = [] {
        std::this_thread::yield();           /* another thread may ask meanwhile */
        return 42;
    }();
    return table;
}

/* Throws through a frame and a lock, and catches, with a switch inside the catch. */
static void throw_and_catch(int n) {
    try {
        std::lock_guard<std::mutex> held(other);
        if (n >= 0) throw std::runtime_error("worker " + std::to_string(n));
    } catch (const std::runtime_error &e) {
        std::this_thread::yield();           /* another thread throws meanwhile */
        assert(e.what() == "worker " + std::to_string(n));
        assert(std::uncaught_exceptions() == 0);
        try {
            throw;                           /* the exception this thread is handling */
        } catch (const std::runtime_error &again) {
            assert(&again == &e);
        }
        caught++;
    }
}

static void worker(int n) {
    assert(plain == 5 && mine.value == 7);
    plain += n;
    mine.value = n;
    std::call_once(once, [] { once_calls++; });
    assert(shared_table() == 42);
    throw_and_catch(n);
    {
        std::scoped_lock both(lock, other);
        total += n;
    }
    {
        std::lock_guard<std::recursive_mutex> a(recursive);
        std::lock_guard<std::recursive_mutex> b(recursive);
    }
    if (auto t = std::unique_lock<std::mutex>(other, std::try_to_lock)) assert(t.owns_lock());
    if (n == 1) {
        std::unique_lock<std::shared_mutex> w(table_lock);
        table_value = 10;
        std::lock_guard<std::mutex> l(lock);
        table_written = true;
        changed_any.notify_all();
    } else {
        {
            std::unique_lock<std::mutex> l(lock);
            changed_any.wait(l, [] { return table_written; });
        }
        std::shared_lock<std::shared_mutex> r(table_lock);
        assert(table_value == 10);
    }
    if (timed.try_lock_for(5ms)) timed.unlock();
    total.fetch_add(1);
    std::this_thread::yield();
    assert(plain == 5 + n && mine.value == n);   /* still this thread's own */
    std::unique_lock<std::mutex> l(lock);
    done_count++;
    changed.notify_all();
}

int main() {
    assert(std::thread::hardware_concurrency() >= 1);
    auto start = std::chrono::steady_clock::now();
    auto wall = std::chrono::system_clock::now();
    std::vector<std::thread> threads;
    for (int i = 0; i < WORKERS; i++) threads.emplace_back(worker, i + 1);
    std::thread::id main_id = std::this_thread::get_id();
    for (auto &t : threads) assert(t.get_id() != main_id && t.joinable());
    {
        std::unique_lock<std::mutex> l(lock);
        changed.wait(l, [] { return done_count == WORKERS; });
    }
    for (auto &t : threads) t.join();
    assert(once_calls == 1 && caught == WORKERS && total == 1 + 2 + 3 + WORKERS);
    assert(constructed == WORKERS && destroyed == WORKERS);

    /* Deadlines on the logical clock: nobody notifies, so each wait times
     * out (a wait without a predicate may also wake spuriously). */
    {
        std::unique_lock<std::mutex> l(lock);
        assert(!changed.wait_for(l, 50ms, [] { return false; }));
        assert(!changed.wait_until(l, std::chrono::system_clock::now() + 10ms, [] { return false; }));
    }
    std::this_thread::sleep_for(1s);
    std::this_thread::sleep_until(std::chrono::steady_clock::now() + 2s);
    auto slept = std::chrono::steady_clock::now() - start;
    assert(slept >= 3060ms && slept < 3100ms);   /* logical: no run takes wall time */
    assert(std::chrono::system_clock::now() - wall >= 3060ms);

    /* A timed lock held by another: it times out, on the logical clock. */
    assert(timed.try_lock());
    std::thread([] { assert(!timed.try_lock_for(20ms)); }).join();
    timed.unlock();

    /* A detached thread, and its end awaited on an atomic flag. */
    std::atomic<bool> finished{false};
    std::thread([&finished] { finished.store(true); }).detach();
    while (!finished.load()) std::this_thread::yield();
    throw_and_catch(0);
    std::printf("all checks passed\n");
    return 0;
}
