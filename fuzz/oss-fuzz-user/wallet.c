/*
 * wallet.c — a target as a user writes it in their own repository: one C
 * file against the installed heisenfuzz (pkg-config), two variants defined
 * with HF_DEFINE_TARGET_PAIR.  It is the worked example of fuzz/README.md's "Your
 * own targets" and of the OSS-Fuzz recipe beside it, and tests/test_install.sh
 * builds it from outside the tree.
 *
 * Two clients deposit into one wallet.  wallet_buggy reads the balance,
 * may be preempted, then writes it back: a lost update on some
 * interleaving, never on the undisturbed one.  wallet holds a mutex across
 * the read and the write.
 */
#include <hf.h>

enum { CLIENTS = 2, DEPOSITS = 3, AMOUNT = 10 };

typedef struct wallet {
    hf_mutex lock;
    bool locked;       /* the fixed variant's discipline */
    long balance;
} wallet;

static void client(void *arg) {
    wallet *w = arg;
    for (int i = 0; i < DEPOSITS; i++) {
        if (w->locked) hf_mutex_lock(&w->lock);
        long seen = w->balance;
        hf_switch_point();   /* where a real thread could be preempted */
        w->balance = seen + AMOUNT;
        if (w->locked) hf_mutex_unlock(&w->lock);
    }
}

static void run_wallet(bool locked) {
    wallet *w = hf_alloc(sizeof *w);
    hf_mutex_init(&w->lock, "wallet");
    w->locked = locked;
    int ids[CLIENTS];
    for (int c = 0; c < CLIENTS; c++) ids[c] = hf_spawn(hf_printf("client%d", c + 1), client, w);
    for (int c = 0; c < CLIENTS; c++) hf_join(ids[c]);
    hf_state("balance", w->balance);
    hf_always(w->balance == (long)CLIENTS * DEPOSITS * AMOUNT, "every deposit shows in the balance");
}

static void wallet_buggy_main(void *arg) { (void)arg; run_wallet(false); }
static void wallet_fixed_main(void *arg) { (void)arg; run_wallet(true); }

HF_DEFINE_TARGET_PAIR(wallet,
    "two clients deposit by read, preemption point, write: a lost update", wallet_buggy_main,
    "the wallet with a mutex across read and write", wallet_fixed_main);
