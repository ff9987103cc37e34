// The emoji names reactions.add knows. Slack answers `invalid_name` for a name that is neither a
// standard emoji nor one of the workspace's custom emoji; the twin keeps no custom emoji, so a name
// is known when it is one of the standard names below (their common aliases, such as `+1` for
// `thumbsup`, included), a country flag (`flag-` and a two-letter code), or either of those with
// a skin tone (`::skin-tone-2` to `-6`). The list is the everyday set, not all of Unicode's: a
// standard name a test needs that is missing here belongs in it (docs/slack-surface.md).
const STANDARD = `
grinning smiley smile grin laughing satisfied sweat_smile rolling_on_the_floor_laughing joy
slightly_smiling_face upside_down_face melting_face wink blush innocent smiling_face_with_3_hearts
heart_eyes star-struck kissing_heart kissing relaxed kissing_closed_eyes kissing_smiling_eyes
smiling_face_with_tear yum stuck_out_tongue stuck_out_tongue_winking_eye zany_face
stuck_out_tongue_closed_eyes money_mouth_face hugging_face face_with_hand_over_mouth
shushing_face thinking_face saluting_face zipper_mouth_face face_with_raised_eyebrow
neutral_face expressionless no_mouth dotted_line_face smirk unamused face_with_rolling_eyes
grimacing lying_face relieved pensive sleepy drooling_face sleeping mask face_with_thermometer
face_with_head_bandage nauseated_face face_vomiting sneezing_face hot_face cold_face woozy_face
dizzy_face exploding_head face_with_cowboy_hat partying_face disguised_face sunglasses
nerd_face face_with_monocle confused worried slightly_frowning_face white_frowning_face
open_mouth hushed astonished flushed pleading_face face_holding_back_tears frowning anguished
fearful cold_sweat disappointed_relieved cry sob scream confounded persevere disappointed
sweat weary tired_face yawning_face triumph rage pout angry face_with_symbols_on_mouth
smiling_imp imp skull skull_and_crossbones hankey poop shit clown_face japanese_ogre
japanese_goblin ghost alien space_invader robot_face smiley_cat smile_cat joy_cat heart_eyes_cat
smirk_cat kissing_cat scream_cat crying_cat_face pouting_cat see_no_evil hear_no_evil
speak_no_evil
wave raised_back_of_hand raised_hand_with_fingers_splayed hand raised_hand spock-hand
ok_hand pinched_fingers pinching_hand v crossed_fingers hand_with_index_finger_and_thumb_crossed
i_love_you_hand_sign the_horns sign_of_the_horns call_me_hand point_left point_right point_up_2
middle_finger reversed_hand_with_middle_finger_extended point_down point_up
index_pointing_at_the_viewer +1 thumbsup -1 thumbsdown fist facepunch punch left-facing_fist
right-facing_fist clap raised_hands heart_hands open_hands palms_up_together handshake pray
writing_hand nail_care selfie muscle mechanical_arm leg foot ear nose brain eyes eye tongue lips
baby child boy girl adult man woman older_adult older_man older_woman person_frowning
person_with_pouting_face no_good ok_woman information_desk_person raising_hand deaf_person
bow face_palm shrug male-technologist female-technologist technologist
male-student female-student student male-teacher female-teacher teacher scientist
astronaut firefighter ninja superhero supervillain mage fairy vampire zombie genie
walking runner running dancer man_dancing dancers people_holding_hands couple two_men_holding_hands
two_women_holding_hands family speaking_head_in_silhouette bust_in_silhouette busts_in_silhouette
footprints
monkey_face monkey gorilla dog dog2 guide_dog poodle wolf fox_face raccoon cat cat2 black_cat
lion_face tiger tiger2 leopard horse racehorse unicorn_face zebra_face deer cow ox water_buffalo
cow2 pig pig2 boar pig_nose ram sheep goat dromedary_camel camel llama giraffe_face elephant
mammoth rhinoceros hippopotamus mouse mouse2 rat hamster rabbit rabbit2 chipmunk beaver hedgehog
bat bear polar_bear koala panda_face sloth otter skunk kangaroo badger feet paw_prints turkey
chicken rooster hatching_chick baby_chick hatched_chick bird penguin dove_of_peace eagle duck
swan owl dodo feather flamingo peacock parrot frog crocodile turtle lizard snake dragon_face
dragon sauropod t-rex whale spouting_whale whale2 dolphin flipper seal fish tropical_fish
blowfish shark octopus shell coral snail butterfly bug ant bee honeybee beetle ladybug lady_beetle
cricket cockroach spider spider_web scorpion mosquito fly worm microbe bouquet cherry_blossom
white_flower lotus rosette rose wilted_flower hibiscus sunflower blossom tulip seedling
potted_plant evergreen_tree deciduous_tree palm_tree cactus ear_of_rice herb shamrock
four_leaf_clover maple_leaf fallen_leaf leaves mushroom
grapes melon watermelon tangerine lemon banana pineapple mango apple green_apple pear peach
cherries strawberry blueberries kiwifruit tomato olive coconut avocado eggplant potato carrot
corn hot_pepper bell_pepper cucumber leafy_green broccoli garlic onion peanuts chestnut bread
croissant baguette_bread flatbread pretzel bagel pancakes waffle cheese_wedge meat_on_bone
poultry_leg cut_of_meat bacon hamburger fries pizza hotdog sandwich taco burrito tamale
stuffed_flatbread falafel egg fried_egg shallow_pan_of_food stew fondue bowl_with_spoon
green_salad popcorn butter salt canned_food bento rice_cracker rice_ball rice curry ramen
spaghetti sweet_potato oden sushi fried_shrimp fish_cake moon_cake dango dumpling fortune_cookie
takeout_box crab lobster shrimp squid oyster icecream shaved_ice ice_cream doughnut cookie
birthday cake cupcake pie chocolate_bar candy lollipop custard honey_pot baby_bottle glass_of_milk
coffee teapot tea sake champagne wine_glass cocktail tropical_drink beer beers clinking_glasses
tumbler_glass cup_with_straw bubble_tea beverage_box mate_drink ice_cube chopsticks
knife_fork_plate fork_and_knife spoon hocho knife amphora
earth_africa earth_americas earth_asia globe_with_meridians world_map japan compass
snow_capped_mountain mountain volcano mount_fuji camping beach_with_umbrella desert
desert_island national_park stadium classical_building building_construction bricks rock wood
hut house_buildings derelict_house_building house house_with_garden office post_office
european_post_office hospital bank hotel love_hotel convenience_store school department_store
factory japanese_castle european_castle wedding tokyo_tower statue_of_liberty church mosque
synagogue shinto_shrine kaaba fountain tent foggy night_with_stars cityscape sunrise_over_mountains
sunrise city_sunset city_sunrise bridge_at_night hotsprings carousel_horse ferris_wheel
roller_coaster barber circus_tent steam_locomotive railway_car bullettrain_side bullettrain_front
train2 metro light_rail station tram monorail mountain_railway train bus oncoming_bus trolleybus
minibus ambulance fire_engine police_car oncoming_police_car taxi oncoming_taxi car red_car
oncoming_automobile blue_car pickup_truck truck articulated_lorry tractor racing_car
racing_motorcycle motor_scooter manual_wheelchair motorized_wheelchair auto_rickshaw bike
scooter skateboard roller_skate busstop motorway railway_track oil_drum fuelpump rotating_light
traffic_light vertical_traffic_light octagonal_sign construction anchor boat sailboat canoe
speedboat passenger_ship ferry motor_boat ship airplane small_airplane airplane_departure
airplane_arriving parachute seat helicopter suspension_railway mountain_cableway aerial_tramway
satellite rocket flying_saucer bellhop_bell luggage hourglass hourglass_flowing_sand watch
alarm_clock stopwatch timer_clock mantelpiece_clock clock12 clock1 clock2 clock3 clock4 clock5
clock6 clock7 clock8 clock9 clock10 clock11 new_moon first_quarter_moon full_moon
last_quarter_moon crescent_moon new_moon_with_face full_moon_with_face thermometer sunny
sun_with_face ringed_planet star star2 stars milky_way cloud partly_sunny thunder_cloud_and_rain
mostly_sunny sun_small_cloud barely_sunny sun_behind_cloud partly_sunny_rain rain_cloud
snow_cloud lightning lightning_cloud tornado tornado_cloud fog wind_blowing_face cyclone
rainbow closed_umbrella umbrella umbrella_with_rain_drops umbrella_on_ground zap snowflake
snowman snowman_without_snow comet fire droplet ocean
jack_o_lantern christmas_tree fireworks sparkler firecracker sparkles balloon tada
confetti_ball tanabata_tree bamboo dolls flags wind_chime rice_scene red_envelope ribbon gift
reminder_ribbon admission_tickets ticket medal sports_medal trophy first_place_medal
second_place_medal third_place_medal soccer baseball softball basketball volleyball football
rugby_football tennis flying_disc bowling cricket_bat_and_ball field_hockey_stick_and_ball
ice_hockey_stick_and_puck lacrosse table_tennis_paddle_and_ball badminton_racquet_and_shuttlecock
boxing_glove martial_arts_uniform goal_net golf ice_skate fishing_pole_and_fish diving_mask
running_shirt_with_sash ski sled curling_stone dart yo-yo kite 8ball crystal_ball magic_wand
video_game joystick slot_machine game_die jigsaw teddy_bear pinata nesting_dolls spades hearts
diamonds clubs chess_pawn black_joker mahjong flower_playing_cards performing_arts
frame_with_picture art thread sewing_needle yarn knot
eyeglasses dark_sunglasses goggles lab_coat safety_vest necktie shirt tshirt jeans scarf gloves
coat socks dress kimono sari briefs shorts bikini womans_clothes purse handbag pouch
shopping_bags school_satchel thong_sandal mans_shoe shoe athletic_shoe hiking_boot
womans_flat_shoe high_heel sandal ballet_shoes boot crown womans_hat tophat mortar_board
billed_cap military_helmet helmet_with_white_cross prayer_beads lipstick ring gem mute speaker
sound loud_sound loudspeaker mega postal_horn bell no_bell musical_score musical_note notes
studio_microphone level_slider control_knobs microphone headphones radio saxophone accordion
guitar musical_keyboard trumpet violin banjo drum_with_drumsticks iphone calling phone telephone
telephone_receiver pager fax battery low_battery electric_plug computer desktop_computer printer
keyboard three_button_mouse trackball minidisc floppy_disk cd dvd abacus movie_camera
film_frames film_projector clapper tv camera camera_with_flash video_camera vhs mag
mag_right candle bulb flashlight izakaya_lantern lantern diya_lamp notebook_with_decorative_cover
closed_book book open_book green_book blue_book orange_book books notebook ledger
page_with_curl scroll page_facing_up newspaper rolled_up_newspaper bookmark_tabs bookmark label
moneybag coin yen dollar euro pound money_with_wings credit_card receipt chart
email envelope e-mail incoming_envelope envelope_with_arrow outbox_tray inbox_tray package
mailbox mailbox_closed mailbox_with_mail mailbox_with_no_mail postbox ballot_box_with_ballot
pencil2 black_nib lower_left_fountain_pen lower_left_ballpoint_pen lower_left_paintbrush
lower_left_crayon memo pencil briefcase file_folder open_file_folder card_index_dividers date
calendar spiral_note_pad spiral_calendar_pad card_index chart_with_upwards_trend
chart_with_downwards_trend bar_chart clipboard pushpin round_pushpin paperclip
linked_paperclips straight_ruler triangular_ruler scissors card_file_box file_cabinet
wastebasket lock unlock lock_with_ink_pen closed_lock_with_key key old_key hammer axe pick
hammer_and_pick hammer_and_wrench dagger_knife crossed_swords gun boomerang bow_and_arrow
shield carpentry_saw wrench screwdriver nut_and_bolt gear compression clamp scales
probing_cane link chains hook toolbox magnet ladder alembic test_tube petri_dish dna microscope
telescope satellite_antenna syringe drop_of_blood pill adhesive_bandage crutch stethoscope x-ray
door elevator mirror window bed couch_and_lamp chair toilet plunger shower bathtub mouse_trap
razor lotion_bottle safety_pin broom basket roll_of_paper bucket soap bubbles toothbrush sponge
fire_extinguisher shopping_trolley smoking coffin headstone funeral_urn moyai placard
identification_card
heart orange_heart yellow_heart green_heart blue_heart purple_heart brown_heart black_heart
white_heart broken_heart heart_on_fire mending_heart heavy_heart_exclamation_mark_ornament
two_hearts revolving_hearts heartbeat heartpulse sparkling_heart cupid gift_heart
heart_decoration kiss 100 anger boom collision dizzy sweat_drops dash hole bomb speech_balloon
eye-in-speech-bubble left_speech_bubble right_anger_bubble thought_balloon zzz
atm put_litter_in_its_place potable_water wheelchair mens womens restroom baby_symbol wc
passport_control customs baggage_claim left_luggage warning children_crossing no_entry
no_entry_sign no_bicycles no_smoking do_not_litter non-potable_water no_pedestrians
no_mobile_phones underage radioactive_sign biohazard_sign arrow_up arrow_upper_right
arrow_right arrow_lower_right arrow_down arrow_lower_left arrow_left arrow_upper_left
arrow_up_down left_right_arrow leftwards_arrow_with_hook arrow_right_hook arrow_heading_up
arrow_heading_down arrows_clockwise arrows_counterclockwise back end on soon top
place_of_worship atom_symbol om_symbol star_of_david wheel_of_dharma yin_yang latin_cross
orthodox_cross star_and_crescent peace_symbol menorah_with_nine_branches six_pointed_star
aries taurus gemini cancer leo virgo libra scorpius sagittarius capricorn aquarius pisces
ophiuchus twisted_rightwards_arrows repeat repeat_one arrow_forward fast_forward
black_right_pointing_double_triangle_with_vertical_bar
black_right_pointing_triangle_with_double_vertical_bar arrow_backward rewind
black_left_pointing_double_triangle_with_vertical_bar arrow_up_small arrow_double_up
arrow_down_small arrow_double_down double_vertical_bar black_square_for_stop
black_circle_for_record eject cinema low_brightness high_brightness signal_strength
vibration_mode mobile_phone_off female_sign male_sign transgender_symbol heavy_multiplication_x
heavy_plus_sign heavy_minus_sign heavy_division_sign heavy_equals_sign infinity bangbang
interrobang question grey_question grey_exclamation exclamation heavy_exclamation_mark
wavy_dash currency_exchange heavy_dollar_sign medical_symbol recycle fleur_de_lis trident
name_badge beginner o white_check_mark ballot_box_with_check heavy_check_mark x
negative_squared_cross_mark curly_loop loop part_alternation_mark eight_spoked_asterisk
eight_pointed_black_star sparkle copyright registered tm hash keycap_star zero one two three
four five six seven eight nine keycap_ten capital_abcd abcd 1234 symbols abc a ab b cl cool
free information_source id m new ng o2 ok parking sos up vs koko sa u6708 u6709 u6307
ideograph_advantage u5272 u7121 u7981 accept u7533 u5408 u7a7a congratulations secret u55b6
u6e80 red_circle large_orange_circle large_yellow_circle large_green_circle large_blue_circle
large_purple_circle large_brown_circle black_circle white_circle large_red_square
large_orange_square large_yellow_square large_green_square large_blue_square
large_purple_square large_brown_square black_large_square white_large_square
black_medium_square white_medium_square black_medium_small_square white_medium_small_square
black_small_square white_small_square large_orange_diamond large_blue_diamond
small_orange_diamond small_blue_diamond small_red_triangle small_red_triangle_down
diamond_shape_with_a_dot_inside radio_button white_square_button black_square_button
checkered_flag triangular_flag_on_post crossed_flags waving_black_flag waving_white_flag
rainbow-flag transgender_flag pirate_flag
`;

const NAMES: ReadonlySet<string> = new Set(STANDARD.split(/\s+/).filter((n) => n !== ''));
const SKIN_TONE = /::skin-tone-[2-6]$/;

/** Whether reactions.add knows `name` as an emoji (the rule above). */
export function isKnownEmoji(name: string): boolean {
  const base = name.replace(SKIN_TONE, '');
  return NAMES.has(base) || /^flag-[a-z]{2}$/.test(base);
}
