//repeat 5000
"tile.loop"() ({
module {
