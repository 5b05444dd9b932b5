# MODULE: ewise.py
# ERROR: cache_read: block C: it reads 1 buffers; index 3 is out of range
sch = tir.Schedule(mod)
c = sch.get_block("C")
sch.cache_read(c, 3, "global")
