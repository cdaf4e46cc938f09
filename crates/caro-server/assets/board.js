// board.js: the game board (work in progress).
export class Board {}
