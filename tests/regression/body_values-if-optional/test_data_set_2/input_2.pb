
ot