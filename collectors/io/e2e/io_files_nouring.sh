# io_files.sh with the io_uring_submit_req tracepoint refused (PTOP_TEST_REFUSE,
# record/kfeature.h), as on a kernel before Linux 6.3 (Debian 12's 6.1): --io-files runs
# without its io_uring lane, whose reason the probe set gives; every per-file figure is as
# exact as io_files.sh asserts, and report io says the io_uring requests were not measured.
export PTOP_TEST_REFUSE=tp_btf:io_uring_submit_req
. collectors/io/e2e/io_files.sh
