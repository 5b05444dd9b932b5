

mlc.tuning