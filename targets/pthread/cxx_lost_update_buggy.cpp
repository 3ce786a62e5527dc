/*
 * cxx_lost_update_buggy.cpp — lost_update in C++: two std::threads increment
 * a shared counter without a lock; one preemption between another thread's
 * load and store loses an increment.  Fewest preemptions: 1.
 */
#include <cassert>
#include <cstdio>
#include <thread>

static const int THREADS = 2, INCREMENTS = 3;

static long counter;

int main() {
    std::thread t[THREADS];
    for (auto &thread : t)
        thread = std::thread([] {
            for (int i = 0; i < INCREMENTS; i++) counter = counter + 1;
        });
    for (auto &thread : t) thread.join();
    std::printf("counter = %ld\n", counter);
    assert(counter == THREADS * INCREMENTS);
    return 0;
}
