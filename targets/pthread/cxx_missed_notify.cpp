/*
 * cxx_missed_notify.cpp — the twin of cxx_missed_notify_buggy.cpp: the
 * consumer waits with a predicate, so a notify sent before it waits (or a
 * spurious wake-up) finds the item ready.
 */
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

static std::mutex lock;
static std::condition_variable ready_cond;
static bool ready;
static int item;

int main() {
    std::thread consumer([] {
        std::unique_lock<std::mutex> l(lock);
        ready_cond.wait(l, [] { return ready; });
        std::printf("consumed %d\n", item);
    });
    std::thread producer([] {
        std::lock_guard<std::mutex> l(lock);
        item = 42;
        ready = true;
        ready_cond.notify_one();
    });
    consumer.join();
    producer.join();
    return 0;
}
