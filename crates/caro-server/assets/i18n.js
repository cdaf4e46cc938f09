// i18n.js: every word the page shows, in English and Tiếng Việt, and the
// language in use. `t(key, {name: value})` fills `{name}` in the text;
// elements with `data-i18n` (text), `data-i18n-placeholder`,
// `data-i18n-aria` (aria-label) and `data-i18n-title` are filled by
// applyText(). A missing Vietnamese text falls back to English.

export const TEXT = {
  en: {
    // site
    site_title: "caro: Caro, Gomoku, Renju and tic-tac-toe",
    meta_description: "Play Caro, Gomoku, Renju and tic-tac-toe against the computer, a friend on the same screen or online; watch two computers; analyse your games.",
    nav_play: "Play", nav_games: "Games", nav_main: "Main", language: "Language",
    theme_dark: "Dark theme", theme_light: "Light theme", skip: "Skip to the content",
    footer: "caro: five in a row, on your own computer.",
    // home
    home_title: "Five in a row: Caro, Gomoku, Renju, tic-tac-toe",
    home_lead: "Play the computer, a friend on this screen or online, or watch two computers.",
    quick_game: "Game", q_gomoku: "Gomoku 15×15", q_caro: "Caro 20×20", q_renju: "Renju 15×15", q_ttt: "Tic-tac-toe 3×3",
    q_computer: "Play the computer", q_computer_help: "Choose a level: 1 is gentle, 10 is full strength.",
    q_level: "Level {n}", q_level_aria: "Play the computer at level {n}",
    q_friend: "Play a friend", q_friend_online: "Play a friend online", q_friend_here: "On this screen",
    q_watch: "Watch two computers", q_watch_go: "Watch caro:6 against caro:4",
    q_open: "Open a position", code: "Position code", code_ph: "e.g. v1.15x15.5.renju…", open: "Open",
    import: "Import a PSQ file",
    custom: "Custom game", mode: "Mode", mode_hh: "Two people, this screen", mode_hc: "You (black) vs computer",
    mode_ch: "Computer vs you (white)", mode_cc: "Computer vs computer", mode_online: "A friend online",
    board: "Board", size: "Size", p_ttt: "3×3 tic-tac-toe", p_15: "15×15 gomoku / renju", p_19: "19×19",
    p_20: "20×20 caro", p_30: "30×30", p_60: "60×60", p_custom: "custom", rows: "Rows", columns: "Columns",
    k: "In a row to win", k_auto: "auto", rule: "Rule",
    r_freestyle: "freestyle (k or more)", r_standard: "standard (exactly k)", r_renju: "renju",
    r_caro: "caro (blocked ends do not win)", "r_caro-standard": "caro-standard (exactly k, not blocked)",
    opening: "Opening", o_free: "free", o_swap1: "swap1 (3 stones, then choose a colour)",
    o_swap2: "swap2 (3 stones, then choose or place two more)",
    o_soosorv8: "Soosõrv-8 (renju: 3 canonical stones, a 4th, then offered 5th moves)",
    o_taraguchi10: "Taraguchi-10 (renju: stones in growing central squares, a swap after each)",
    first: "First to move", c_black_x: "black (X)", c_white_o: "white (O)",
    match: "Match", m_single: "a single game", m_first_to: "first to {n} wins",
    pl_levels: "caro, levels 1 to 10", pl_articles: "The articles' players", pl_engines: "Engines",
    pl_random: "Random moves", pl_scoremap: "Caro article's score map", pl_quintuple: "Gobang scorecard",
    pl_minimax: "Tic-tac-toe minimax, strength {n} (0–4)",
    players: "Players", black_player: "Black", white_player: "White", time: "Time per move",
    clock: "Clock (online)", no_clock: "none", go: "Start the game",
    need_size: "Rows and columns must each be from 3 to 60.",
    need_k: "In a row to win must be from 3 to 10 and fit the board.",
    need_black: "Choose the black computer player.", need_white: "Choose the white computer player.",
    renju_first: "Under renju black moves first.",
    // game page
    game: "Game", players_aria: "Players", board_aria: "board {w} by {h}", empty_point: "empty", human: "Player", you: "You",
    level: "level {n}", strength: "strength {n}", computer_player: "computer",
    c_black: "Black", c_white: "White", vs: "vs",
    g_tictactoe: "Tic-tac-toe", g_gomoku: "Gomoku", g_renju: "Renju", g_caro: "Caro",
    to_move: "{c} to move", you_to_move: "Your move ({c})", thinking: "{p} ({c}) is thinking…",
    paused: "Paused. {c} to move.", waiting: "Waiting for {c}…",
    wins_five: "{c} wins with {k} in a row!", draw: "Draw: the board is full.",
    draw_stuck: "Draw: black has no legal move left (every empty point is forbidden).",
    resigned: "{l} resigned: {c} wins.", foul: "Black played a forbidden point: white wins.",
    failed: "{c} wins: the other player failed to move.", timeout: "{l} ran out of time: {c} wins.",
    agreed: "Draw agreed.",
    you_win_five: "You win with {k} in a row!", you_lose_five: "You lose: {c} wins with {k} in a row.",
    you_win_resign: "{l} resigned: you win.", you_lose_resign: "You resigned: {c} wins.",
    you_win_time: "{l} ran out of time: you win.", you_lose_time: "You ran out of time: {c} wins.",
    you_win_failed: "You win: {l} failed to move.",
    you_win_foul: "{l} played a forbidden point: you win.", you_lose_foul: "You played a forbidden point: {c} wins.",
    viewing: "Viewing move {n} of {m}", live: "Back to the game", nav_first: "First move", nav_prev: "Previous move",
    nav_next: "Next move", nav_last: "Last move", moves_title: "Moves", no_moves: "No moves yet.",
    move_n: "Move {n}: {c} {m}",
    undo: "Undo", redo: "Redo", resign: "Resign", stop: "Play now", new_game: "New game",
    rematch: "Rematch", rematch_swap: "Rematch (swap colours)", next_game: "Next game", analyse: "Analyse",
    close: "Close", pause: "Pause", resume: "Resume", step: "Step", delay: "Delay", delay_value: "{s} s",
    style: "Board", s_wood: "wood", s_flat: "flat", s_xo: "X and O",
    numbers: "Move numbers", off: "off", last10: "last 10", all: "all", sound: "Sound",
    export: "Export PSQ", link: "Copy position link", copied: "Link copied: {u}", reset_view: "Fit the board",
    keys: "Keys: on the board, arrows move the cursor and Enter or Space plays; elsewhere ← → step through the moves, Home / End first and last; u undo, r redo, ? this help.",
    help: "Keys", options: "Options and keys",
    // engine panel
    engine: "Engine", e_side: "{p} plays {c}",
    e_chance: "{c} {p}%", e_wins_in: "{c} wins in {n}", e_wins: "{c} wins", e_line: "Line: {l}",
    e_eval: "Evaluation", e_after: "after move {n}",
    // swap and match
    sw_place3: "Opening: place stone {n} of 3 ({c}).", sw_place3_wait: "{p} is placing the opening stones…",
    sw_choose1: "Choose your colour: take black or take white.",
    sw_choose2: "Choose: take black, take white, or place two more stones and let your opponent choose.",
    sw_choose_last: "Choose your colour.",
    sw_choose_wait: "{p} is choosing a colour…", sw_place2: "Place two more stones: {n} of 2 ({c}).",
    sw_place2_wait: "{p} is placing two more stones…",
    "take-black": "Take black", "take-white": "Take white", "place-two": "Place two more",
    sw_took: "Opening: {p} takes {c}.", sw_choose_after_two: "{p} placed two more stones: choose your colour.",
    "place-fifth": "Place the 5th stone", "offer-fifths": "Offer ten 5th moves", offers_n: "Offer {n}",
    rj_place: "Opening: place stone {n} ({c}) {zone}.", rj_place_wait: "{p} is placing an opening stone…",
    rj_zone_centre: "at the centre", rj_zone: "within the central {s}×{s} square", rj_zone_any: "anywhere",
    rj_swap: "Keep your colour or swap: take black or take white.",
    rj_declare: "You hold black: how many 5th moves will you offer? (1 to {n})",
    rj_branch: "You hold black: place the 5th stone in the central 9×9, or offer ten 5th moves.",
    rj_offer: "Offer a 5th move: click a point ({m} of {n}). No two offers may be symmetric.",
    rj_offer_wait: "{p} is offering 5th moves…",
    rj_pick: "Pick black's 5th move: click one of the marked points.",
    rj_pick_wait: "{p} is picking one of the offered 5th moves…", rj_wait: "{p} is deciding…",
    sw_title: "Opening", sw_seat_first: "opens", sw_seat_second: "chooses",
    m_score: "Match, first to {n}: game {g}", m_over: "Match over: {p} wins {a}–{b}",
    m_draws: "draws {d}",
    m_you_win: "You win the match {a}–{b}", m_you_lose: "You lose the match {a}–{b}",
    m_wins: "{p} wins the match {a}–{b}", m_drawn: "Match drawn {a}–{b} after {g} games",
    m_game_won: "Game {n}: {p} won", m_game_draw: "Game {n}: draw", m_games: "The match's games",
    match_title: "Match over", new_match: "New match", opponent: "Opponent",
    match_help: "A match of first to N wins lasts at most 2N − 1 games, draws included (first to 3: at most 5 games); then whoever has more wins takes it, and equal wins draw it.",
    // dialogs
    confirm_resign: "Resign this game?", confirm_yes: "Resign", cancel: "Cancel",
    result_title: "Game over",
    // online
    online_you: "You play {c}.", online_watch: "You are watching.",
    link_white: "White's link: send it to your friend", link_black: "Black's link (yours)",
    link_watch: "Spectators' link", copy: "Copy", copied_plain: "Copied.",
    takeback: "Ask to take back", offer_draw: "Offer a draw", accept: "Accept", decline: "Decline",
    asks_takeback: "Your opponent asks to take back a move.", asked_takeback: "Takeback asked: waiting for your opponent.",
    offers_draw: "Your opponent offers a draw.", offered_draw: "Draw offered: waiting for your opponent.",
    wants_rematch: "Your opponent wants a rematch.", asked_rematch: "Rematch asked: waiting for your opponent.",
    wants_next: "Your opponent is ready for the next game.", asked_next: "Waiting for your opponent to start the next game.",
    connected: "connected", disconnected: "not connected", waiting_friend: "waiting for your friend",
    declined_draw: "Your opponent declined the draw.", declined_takeback: "Your opponent declined the takeback.",
    closed: "Connection closed: {r}", reconnecting: "Connection lost; reconnecting…",
    // lists and pages
    show_empty: "Show games with no moves", empty_games: "({n} without moves hidden)",
    saved_games: "Saved games", moves_unit: "moves", col_game: "Game", col_players: "Players", moves: "Moves", result: "Result",
    date: "Date", no_games: "No saved games yet.", ongoing: "unfinished", online_badge: "online",
    match_game: "match game {n}", draw_short: "draw",
    why_five: "five", why_resign: "resignation", why_draw: "full board", why_foul: "forbidden point",
    why_failed: "no move", why_time: "time", why_agreed: "agreed",
    won_by: "{c} won ({w})", not_found: "There is no such page.", game_not_found: "There is no game {id} on this server.",
    back_home: "Back to the home page", loading: "Loading…",
    // errors, by the server's codes
    e_outside_zone: "This opening stone must go in the central square the opening allows.",
    e_bad_offer: "That point is offered already or symmetric to an earlier offer.",
    e_not_an_offer: "Pick one of the offered 5th moves: the marked points.",
    e_occupied: "That point is already taken.", e_forbidden: "Forbidden point for black (renju): double-three, double-four or overline.",
    e_off_board: "That point is off the board.",
    e_not_your_turn: "Not your turn: the computer is to move.", e_game_over: "The game is over.",
    e_nothing_to_undo: "Nothing to undo.", e_nothing_to_redo: "Nothing to redo.",
    e_busy: "The server is busy; try again in a moment.", e_network: "Cannot reach the server.",
    e_nobody_to_resign: "Only a person can resign.", e_not_a_player: "You are watching: only the two players can move.",
    e_no_offer: "There is no offer to answer.", e_online: "Not available in an online game.",
    e_too_many_games: "You have too many unfinished online games: finish some first.", e_wait: "Not your turn.",
    e_storage: "The server could not save that; nothing changed. Try again in a moment.",
    e_rate_limited: "Too many new games from here; wait a little and try again.",
    e_too_many_connections: "The server has too many connections; try again in a moment.",
    e_not_found: "There is no such game on this server.", e_bad_request: "The server refused these settings.",
    e_bad_json: "The server could not read the request.", e_too_large: "That is too large for the server.",
    e_internal: "The server failed; try again.", e_not_your_choice: "It is not your choice to make.",
    e_must_choose: "A colour must be chosen first.", e_no_choice: "There is no choice to make now.",
    e_match_over: "The match is over.", e_no_match: "This game is not part of a match.",
    e_no_hint: "A hint is only for a person's turn against the computer.",
    e_other: "The server refused ({c}).",
  },
  vi: {
    site_title: "caro: cờ caro, Gomoku, Renju và tic-tac-toe",
    meta_description: "Chơi cờ caro, Gomoku, Renju và tic-tac-toe với máy, với bạn trên cùng màn hình hoặc qua mạng; xem hai máy đấu nhau; phân tích ván cờ.",
    nav_play: "Chơi", nav_games: "Ván đã lưu", nav_main: "Chính", language: "Ngôn ngữ",
    theme_dark: "Giao diện tối", theme_light: "Giao diện sáng", skip: "Đến nội dung chính",
    footer: "caro: năm quân liên tiếp, ngay trên máy của bạn.",
    home_title: "Cờ caro, Gomoku, Renju và tic-tac-toe",
    home_lead: "Chơi với máy, với bạn trên cùng màn hình hoặc qua mạng, hoặc xem hai máy đấu nhau.",
    quick_game: "Ván cờ", q_gomoku: "Gomoku 15×15", q_caro: "Caro 20×20", q_renju: "Renju 15×15", q_ttt: "Tic-tac-toe 3×3",
    q_computer: "Chơi với máy", q_computer_help: "Chọn cấp độ: 1 là dễ nhất, 10 là mạnh nhất.",
    q_level: "Cấp {n}", q_level_aria: "Chơi với máy ở cấp {n}",
    q_friend: "Chơi với bạn", q_friend_online: "Chơi với bạn qua mạng", q_friend_here: "Trên màn hình này",
    q_watch: "Xem hai máy đấu", q_watch_go: "Xem caro:6 đấu với caro:4",
    q_open: "Mở một thế cờ", code: "Mã thế cờ", code_ph: "ví dụ v1.15x15.5.renju…", open: "Mở",
    import: "Nhập tệp PSQ",
    custom: "Ván tùy chọn", mode: "Chế độ", mode_hh: "Hai người, cùng màn hình", mode_hc: "Bạn (đen) với máy",
    mode_ch: "Máy với bạn (trắng)", mode_cc: "Máy với máy", mode_online: "Với bạn qua mạng",
    board: "Bàn cờ", size: "Kích thước", p_ttt: "3×3 tic-tac-toe", p_15: "15×15 gomoku / renju", p_19: "19×19",
    p_20: "20×20 caro", p_30: "30×30", p_60: "60×60", p_custom: "tùy chọn", rows: "Số hàng", columns: "Số cột",
    k: "Số quân liên tiếp để thắng", k_auto: "tự động", rule: "Luật",
    r_freestyle: "tự do (k quân trở lên)", r_standard: "chuẩn (đúng k quân)", r_renju: "renju",
    r_caro: "caro (bị chặn hai đầu không thắng)", "r_caro-standard": "caro chuẩn (đúng k quân, không bị chặn)",
    opening: "Khai cuộc", o_free: "tự do", o_swap1: "swap1 (3 quân, rồi chọn màu)",
    o_swap2: "swap2 (3 quân, rồi chọn màu hoặc đặt thêm hai quân)",
    o_soosorv8: "Soosõrv-8 (renju: 3 quân chuẩn, quân thứ 4, rồi đề nghị các nước thứ 5)",
    o_taraguchi10: "Taraguchi-10 (renju: đặt quân trong các ô trung tâm lớn dần, đổi màu sau mỗi quân)",
    first: "Đi trước", c_black_x: "đen (X)", c_white_o: "trắng (O)",
    match: "Trận đấu", m_single: "một ván", m_first_to: "ai thắng {n} ván trước",
    pl_levels: "caro, cấp 1 đến 10", pl_articles: "Các máy trong bài viết", pl_engines: "Chương trình khác",
    pl_random: "Đi ngẫu nhiên", pl_scoremap: "Bảng điểm của bài viết về cờ caro", pl_quintuple: "Bảng điểm Gobang",
    pl_minimax: "Minimax tic-tac-toe, độ mạnh {n} (0–4)",
    players: "Người chơi", black_player: "Đen", white_player: "Trắng", time: "Thời gian mỗi nước",
    clock: "Đồng hồ (qua mạng)", no_clock: "không", go: "Bắt đầu",
    need_size: "Số hàng và số cột phải từ 3 đến 60.",
    need_k: "Số quân để thắng phải từ 3 đến 10 và vừa bàn cờ.",
    need_black: "Hãy chọn máy cầm quân đen.", need_white: "Hãy chọn máy cầm quân trắng.",
    renju_first: "Theo luật renju, quân đen đi trước.",
    game: "Ván cờ", players_aria: "Người chơi", board_aria: "bàn cờ {w} × {h}", empty_point: "trống", human: "Người chơi", you: "Bạn",
    level: "cấp {n}", strength: "độ mạnh {n}", computer_player: "máy",
    c_black: "Đen", c_white: "Trắng", vs: "với",
    g_tictactoe: "Tic-tac-toe", g_gomoku: "Gomoku", g_renju: "Renju", g_caro: "Caro",
    to_move: "Lượt của {c}", you_to_move: "Đến lượt bạn ({c})", thinking: "{p} ({c}) đang suy nghĩ…",
    paused: "Tạm dừng. Lượt của {c}.", waiting: "Đang chờ {c}…",
    wins_five: "{c} thắng với {k} quân liên tiếp!", draw: "Hòa: bàn cờ đã kín.",
    draw_stuck: "Hòa: quân Đen không còn nước đi hợp lệ (mọi điểm trống đều bị cấm).",
    resigned: "{l} chịu thua: {c} thắng.", foul: "Đen đi vào điểm cấm: Trắng thắng.",
    failed: "{c} thắng: đối thủ không đi được.", timeout: "{l} hết giờ: {c} thắng.",
    you_win_five: "Bạn thắng với {k} quân liên tiếp!", you_lose_five: "Bạn thua: {c} thắng với {k} quân liên tiếp.",
    you_win_resign: "{l} chịu thua: bạn thắng.", you_lose_resign: "Bạn chịu thua: {c} thắng.",
    you_win_time: "{l} hết giờ: bạn thắng.", you_lose_time: "Bạn hết giờ: {c} thắng.",
    you_win_failed: "Bạn thắng: {l} không đi được.",
    you_win_foul: "{l} đi vào điểm cấm: bạn thắng.", you_lose_foul: "Bạn đi vào điểm cấm: {c} thắng.",
    agreed: "Hòa theo thỏa thuận.",
    viewing: "Đang xem nước {n} / {m}", live: "Trở lại ván cờ", nav_first: "Nước đầu", nav_prev: "Nước trước",
    nav_next: "Nước sau", nav_last: "Nước cuối", moves_title: "Các nước đi", no_moves: "Chưa có nước nào.",
    move_n: "Nước {n}: {c} {m}",
    undo: "Đi lại", redo: "Đi tiếp", resign: "Chịu thua", stop: "Đi ngay", new_game: "Ván mới",
    rematch: "Đấu lại", rematch_swap: "Đấu lại (đổi màu)", next_game: "Ván tiếp theo", analyse: "Phân tích",
    close: "Đóng", pause: "Tạm dừng", resume: "Tiếp tục", step: "Từng nước", delay: "Độ trễ", delay_value: "{s} giây",
    style: "Bàn cờ", s_wood: "gỗ", s_flat: "phẳng", s_xo: "X và O",
    numbers: "Số thứ tự nước đi", off: "tắt", last10: "10 nước cuối", all: "tất cả", sound: "Âm thanh",
    export: "Xuất PSQ", link: "Chép liên kết thế cờ", copied: "Đã chép liên kết: {u}", reset_view: "Vừa bàn cờ",
    keys: "Phím: trên bàn cờ, các phím mũi tên di chuyển con trỏ, Enter hoặc Space để đi; ở chỗ khác ← → xem lại từng nước, Home / End về đầu và cuối; u đi lại, r đi tiếp, ? trợ giúp.",
    help: "Phím tắt", options: "Tùy chọn và phím tắt",
    engine: "Máy tính toán", e_side: "{p} cầm quân {c}",
    e_chance: "{c} {p}%", e_wins_in: "{c} thắng sau {n} nước", e_wins: "{c} thắng", e_line: "Biến: {l}",
    e_eval: "Đánh giá", e_after: "sau nước {n}",
    sw_place3: "Khai cuộc: đặt quân thứ {n} / 3 ({c}).", sw_place3_wait: "{p} đang đặt các quân khai cuộc…",
    sw_choose1: "Hãy chọn màu: cầm đen hoặc cầm trắng.",
    sw_choose2: "Hãy chọn: cầm đen, cầm trắng, hoặc đặt thêm hai quân để đối thủ chọn.",
    sw_choose_last: "Hãy chọn màu quân.",
    sw_choose_wait: "{p} đang chọn màu…", sw_place2: "Đặt thêm hai quân: quân {n} / 2 ({c}).",
    sw_place2_wait: "{p} đang đặt thêm hai quân…",
    "take-black": "Cầm đen", "take-white": "Cầm trắng", "place-two": "Đặt thêm hai quân",
    sw_took: "Khai cuộc: {p} cầm quân {c}.", sw_choose_after_two: "{p} đã đặt thêm hai quân: hãy chọn màu quân.",
    "place-fifth": "Đặt quân thứ 5", "offer-fifths": "Đề nghị mười nước thứ 5", offers_n: "Đề nghị {n}",
    rj_place: "Khai cuộc: đặt quân thứ {n} ({c}) {zone}.", rj_place_wait: "{p} đang đặt quân khai cuộc…",
    rj_zone_centre: "ở tâm bàn cờ", rj_zone: "trong ô vuông trung tâm {s}×{s}", rj_zone_any: "ở bất kỳ đâu",
    rj_swap: "Giữ màu hay đổi màu: cầm đen hoặc cầm trắng.",
    rj_declare: "Bạn đang cầm đen: bạn sẽ đề nghị bao nhiêu nước thứ 5? (1 đến {n})",
    rj_branch: "Bạn đang cầm đen: đặt quân thứ 5 trong ô 9×9 trung tâm, hoặc đề nghị mười nước thứ 5.",
    rj_offer: "Đề nghị nước thứ 5: bấm vào một điểm ({m} / {n}). Không được có hai nước đối xứng nhau.",
    rj_offer_wait: "{p} đang đề nghị các nước thứ 5…",
    rj_pick: "Chọn nước thứ 5 cho quân đen: bấm vào một trong các điểm được đánh dấu.",
    rj_pick_wait: "{p} đang chọn một nước thứ 5…", rj_wait: "{p} đang quyết định…",
    sw_title: "Khai cuộc", sw_seat_first: "khai cuộc", sw_seat_second: "chọn màu",
    m_score: "Trận đấu, ai thắng {n} ván trước: ván {g}", m_over: "Trận đấu kết thúc: {p} thắng {a}–{b}",
    m_draws: "hòa {d}",
    m_you_win: "Bạn thắng trận đấu {a}–{b}", m_you_lose: "Bạn thua trận đấu {a}–{b}",
    m_wins: "{p} thắng trận đấu {a}–{b}", m_drawn: "Trận đấu hòa {a}–{b} sau {g} ván",
    m_game_won: "Ván {n}: {p} thắng", m_game_draw: "Ván {n}: hòa", m_games: "Các ván của trận đấu",
    match_title: "Trận đấu kết thúc", new_match: "Trận đấu mới", opponent: "Đối thủ",
    match_help: "Trận đấu ai thắng N ván trước có nhiều nhất 2N − 1 ván, tính cả ván hòa (thắng 3 ván trước: nhiều nhất 5 ván); hết số ván đó, ai thắng nhiều ván hơn thắng trận, bằng nhau thì trận đấu hòa.",
    confirm_resign: "Chịu thua ván này?", confirm_yes: "Chịu thua", cancel: "Hủy",
    result_title: "Ván cờ kết thúc",
    online_you: "Bạn cầm quân {c}.", online_watch: "Bạn đang xem.",
    link_white: "Liên kết quân trắng: gửi cho bạn của bạn", link_black: "Liên kết quân đen (của bạn)",
    link_watch: "Liên kết cho người xem", copy: "Chép", copied_plain: "Đã chép.",
    takeback: "Xin đi lại", offer_draw: "Cầu hòa", accept: "Đồng ý", decline: "Từ chối",
    asks_takeback: "Đối thủ xin đi lại một nước.", asked_takeback: "Đã xin đi lại: đang chờ đối thủ.",
    offers_draw: "Đối thủ cầu hòa.", offered_draw: "Đã cầu hòa: đang chờ đối thủ.",
    wants_rematch: "Đối thủ muốn đấu lại.", asked_rematch: "Đã mời đấu lại: đang chờ đối thủ.",
    wants_next: "Đối thủ đã sẵn sàng cho ván tiếp theo.", asked_next: "Đang chờ đối thủ bắt đầu ván tiếp theo.",
    connected: "đã kết nối", disconnected: "mất kết nối", waiting_friend: "đang chờ bạn của bạn vào",
    declined_draw: "Đối thủ đã từ chối hòa.", declined_takeback: "Đối thủ không cho đi lại.",
    closed: "Kết nối bị đóng: {r}", reconnecting: "Mất kết nối; đang kết nối lại…",
    show_empty: "Hiện cả các ván chưa có nước nào", empty_games: "(đã ẩn {n} ván chưa có nước nào)",
    saved_games: "Các ván đã lưu", moves_unit: "nước", col_game: "Ván cờ", col_players: "Người chơi", moves: "Số nước", result: "Kết quả",
    date: "Ngày", no_games: "Chưa có ván nào được lưu.", ongoing: "chưa xong", online_badge: "qua mạng",
    match_game: "ván {n} của trận", draw_short: "hòa",
    why_five: "đủ quân", why_resign: "chịu thua", why_draw: "kín bàn", why_foul: "điểm cấm",
    why_failed: "không đi được", why_time: "hết giờ", why_agreed: "thỏa thuận",
    won_by: "{c} thắng ({w})", not_found: "Không có trang này.", game_not_found: "Máy chủ không có ván số {id}.",
    back_home: "Về trang chủ", loading: "Đang tải…",
    e_outside_zone: "Quân khai cuộc này phải đặt trong ô vuông trung tâm mà khai cuộc cho phép.",
    e_bad_offer: "Điểm này đã được đề nghị hoặc đối xứng với một nước đã đề nghị.",
    e_not_an_offer: "Hãy chọn một trong các nước thứ 5 được đề nghị: các điểm được đánh dấu.",
    e_occupied: "Ô này đã có quân.", e_forbidden: "Điểm cấm của quân đen (luật renju): ba-ba, bốn-bốn hoặc quá năm.",
    e_off_board: "Điểm này nằm ngoài bàn cờ.",
    e_not_your_turn: "Chưa đến lượt bạn: máy đang đi.", e_game_over: "Ván cờ đã kết thúc.",
    e_nothing_to_undo: "Không có nước nào để đi lại.", e_nothing_to_redo: "Không có nước nào để đi tiếp.",
    e_busy: "Máy chủ đang bận; hãy thử lại sau giây lát.", e_network: "Không kết nối được máy chủ.",
    e_nobody_to_resign: "Chỉ người chơi mới có thể chịu thua.", e_not_a_player: "Bạn đang xem: chỉ hai người chơi mới được đi.",
    e_no_offer: "Không có lời đề nghị nào để trả lời.", e_online: "Không dùng được trong ván chơi qua mạng.",
    e_too_many_games: "Bạn có quá nhiều ván qua mạng chưa xong: hãy chơi xong vài ván trước.", e_wait: "Chưa đến lượt bạn.",
    e_storage: "Máy chủ chưa lưu được; không có gì thay đổi. Hãy thử lại sau giây lát.",
    e_rate_limited: "Có quá nhiều ván mới từ đây; hãy đợi một chút rồi thử lại.",
    e_too_many_connections: "Máy chủ có quá nhiều kết nối; hãy thử lại sau giây lát.",
    e_not_found: "Máy chủ không có ván này.", e_bad_request: "Máy chủ không nhận các thiết lập này.",
    e_bad_json: "Máy chủ không đọc được yêu cầu.", e_too_large: "Dữ liệu quá lớn đối với máy chủ.",
    e_internal: "Máy chủ gặp lỗi; hãy thử lại.", e_not_your_choice: "Không phải lượt bạn chọn.",
    e_must_choose: "Phải chọn màu trước.", e_no_choice: "Bây giờ không có gì để chọn.",
    e_match_over: "Trận đấu đã kết thúc.", e_no_match: "Ván này không thuộc trận đấu nào.",
    e_no_hint: "Chỉ được gợi ý khi đến lượt người chơi trong ván với máy.",
    e_other: "Máy chủ từ chối ({c}).",
  },
};

const listeners = [];
let lang = "en";
try {
  const saved = localStorage.getItem("caro.lang");
  lang = saved || ((navigator.language || "en").toLowerCase().startsWith("vi") ? "vi" : "en");
} catch (_) { /* storage off: the browser's language */ }
if (!TEXT[lang]) lang = "en";

/** The language in use, `en` or `vi`. */
export function getLang() { return lang; }

/** Switches the language, remembers it and redraws every listener. */
export function setLang(l) {
  if (!TEXT[l]) return;
  lang = l;
  try { localStorage.setItem("caro.lang", l); } catch (_) { /* not remembered */ }
  applyText();
  for (const f of listeners) f(l);
}

/** Calls `f(lang)` after every language change. */
export function onLang(f) { listeners.push(f); }

/** The text of `key` in the language in use, `{name}` filled from `args`. */
export function t(key, args) {
  let s = (TEXT[lang] && TEXT[lang][key]) || TEXT.en[key] || key;
  for (const [k, v] of Object.entries(args || {})) s = s.split("{" + k + "}").join(String(v));
  return s;
}

/** Whether `key` has a text. */
export function has(key) { return key in TEXT.en; }

const sayings = new Map();

/**
 * Sets an element's text from `f()` (a function giving the words in the
 * language in use), again after each language change; `null` clears it.
 */
export function say(el, f) {
  if (!f) { sayings.delete(el); el.textContent = ""; return; }
  sayings.set(el, f);
  el.textContent = f();
}

/** Fills the page's marked elements and its `lang` attribute. */
export function applyText(root = document) {
  document.documentElement.lang = lang;
  const meta = document.querySelector('meta[name="description"]');
  if (meta) meta.content = t("meta_description");
  for (const [el, f] of sayings) el.textContent = f();
  root.querySelectorAll("[data-i18n]").forEach((el) => { el.textContent = t(el.dataset.i18n); });
  root.querySelectorAll("[data-i18n-placeholder]").forEach((el) => { el.placeholder = t(el.dataset.i18nPlaceholder); });
  root.querySelectorAll("[data-i18n-aria]").forEach((el) => { el.setAttribute("aria-label", t(el.dataset.i18nAria)); });
  root.querySelectorAll("[data-i18n-title]").forEach((el) => { el.title = t(el.dataset.i18nTitle); });
}
