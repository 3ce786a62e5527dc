/*
 * cxx_missed_notify_buggy.cpp — a missed notify in C++: the consumer waits
 * on a std::condition_variable with no predicate, so a notify_one sent
 * before it waits is lost and it waits forever.  Fewest preemptions: 1
 * (the producer runs first).
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
        ready_cond.wait(l);
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
