//repeat 10000
{
