//repeat 10000
[
